// cc_seed_random: adds random_seed data (and the metadata's random_seed) to the seed file, then runs an optional seed
// command.
import { type Module, ModuleError } from './module';
import { configModule } from './support/config-module';
import { readConfigValue } from './support/config-readers';
import { isRecord } from './support/config-shapes';
import { pyTruthy } from '../util/python-truthy';
import { zlib } from '../util/on-demand-builtins';
import { describeError } from '../util/errors';

/** The encodings cc_seed_random's _decode knows (lower-cased). */
const SEED_ENCODINGS = ['raw', 'base64', 'b64', 'gzip', 'gz'];

/** DATA decoded by ENCODING (already lower-case, one the schema lists), as cc_seed_random's _decode. */
function decode(data: string | Uint8Array, encoding: string | undefined): Buffer {
  const bytes = data instanceof Uint8Array ? Buffer.from(data) : Buffer.from(data, 'utf8');
  if (!encoding || encoding === 'raw') return bytes;
  if (encoding === 'base64' || encoding === 'b64') return Buffer.from(bytes.toString('latin1'), 'base64');
  try {
    // Seed data is small (a few KiB at most); the sync call keeps this simple.
    return zlib().gunzipSync(bytes);
  } catch (err) {
    throw new ModuleError('seed_random', `random_seed.data is not valid gzip data: ${describeError(err)}`, {
      cause: err,
    });
  }
}

/**
 * random_seed as cc_seed_random reads it: null as no settings (kiln's leniency: upstream's .get fails on it), a file
 * that is no non-empty string the default, Python-false data none (and its encoding then unread), an encoding
 * lower()'d, one _decode does not know refused in its IOError's words; a command string one word (kiln's leniency),
 * command_required as get_cfg_option_bool. !!binary data stays bytes (the schema check takes bytes for a string).
 */
function seedSetting(value: unknown): unknown {
  if (value === null) return undefined;
  if (!isRecord(value)) return value;
  const read = readConfigValue(
    {
      file: (file: unknown) => (typeof file === 'string' && file ? file : undefined),
      command: (command: unknown) => (typeof command === 'string' ? [command] : command),
      command_required: 'bool',
    },
    value,
  ) as object;
  if (!pyTruthy(value.data)) return read;
  if (!pyTruthy(value.encoding)) return { ...read, data: value.data };
  const encoding = typeof value.encoding === 'string' ? value.encoding.toLowerCase() : value.encoding;
  if (typeof encoding === 'string' && !SEED_ENCODINGS.includes(encoding))
    throw new ModuleError('seed_random', `Unknown random_seed encoding: ${String(value.encoding)}`);
  return { ...read, data: value.data, encoding };
}

export const seedRandom: Module = configModule({
  name: 'seed_random',
  stage: 'init',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: [],
  configKeys: { random_seed: seedSetting },
  async run(ctx, cfg): Promise<void> {
    const my = cfg.random_seed ?? {};
    const seedPath = my.file ?? '/dev/urandom';
    const parts: Buffer[] = [];
    // !!binary data reaches here as bytes: the schema check takes them where it wants a string, as cloud-init's does.
    const data: string | Uint8Array | undefined = my.data;
    if (data !== undefined) parts.push(decode(data, my.encoding));
    const metaSeed = ctx.instance?.metadata?.random_seed;
    // The bytes the source read (OpenStack-style random_seed, base64 in the metadata and listed as such), else the
    // text.
    const seedIsBytes = ctx.instance?.base64EncodedKeys?.includes('ds/meta_data/random_seed') === true;
    if (metaSeed !== undefined && metaSeed !== null)
      parts.push(seedIsBytes ? Buffer.from(String(metaSeed), 'base64') : Buffer.from(String(metaSeed), 'utf8'));
    const seed = Buffer.concat(parts);
    if (seed.length > 0) {
      ctx.log.debug(`seed_random: adding ${seed.length} bytes of random seed entropy to ${seedPath}`);
      if (seedPath === '/dev/urandom' && ctx.platform.root !== '/') {
        // A sandbox or image has no kernel of its own to feed; its /dev/urandom would be a plain file or the host's
        // device.
        ctx.log.debug('seed_random: the target is not the running system, not writing to /dev/urandom');
      } else if (seedPath.startsWith('/dev/')) {
        await ctx.platform.run(['/bin/sh', '-c', 'cat >> "$1"', 'sh', seedPath], { input: seed.toString('latin1') });
      } else {
        await ctx.platform.writeFile(seedPath, seed, { append: true });
      }
    }
    const required = my.command_required ?? false;
    const argv = my.command ?? [];
    if (argv.length === 0) {
      if (required)
        throw new ModuleError('seed_random', 'random_seed.command: no command found but command_required=true');
      ctx.log.debug('no command provided');
      return;
    }
    const which = await ctx.platform.run(['/bin/sh', '-c', 'command -v "$1"', 'sh', argv[0] as string], {
      allowFailure: true,
    });
    if (which.code !== 0) {
      if (required)
        throw new ModuleError(
          'seed_random',
          `random_seed.command: command '${argv[0]}' not found but command_required=true`,
        );
      ctx.log.debug(`command '${argv[0]}' not found for seed_command`);
      return;
    }
    const r = await ctx.platform.run(argv, { env: { RANDOM_SEED_FILE: seedPath }, allowFailure: true });
    await ctx.output(r.stdout + r.stderr);
    if (r.code !== 0)
      throw new ModuleError('seed_random', `random_seed.command '${argv.join(' ')}' exited with code ${r.code}`);
  },
});

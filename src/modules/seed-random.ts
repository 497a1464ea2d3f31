// cc_seed_random: adds random_seed data (and the metadata's random_seed) to the seed file, then runs an optional seed command.
import { cfgBool } from './support/config-values';
import { type CloudConfig, type Module, type ModuleContext, ModuleError } from './module';
import { zlib } from '../util/on-demand-builtins';
import { describeError } from '../util/errors';

function decode(data: unknown, encoding: unknown): Buffer {
  if (!data) return Buffer.alloc(0);
  const bytes = data instanceof Uint8Array ? Buffer.from(data) : Buffer.from(String(data), 'utf8');
  const enc = typeof encoding === 'string' ? encoding.toLowerCase() : '';
  if (!enc || enc === 'raw') return bytes;
  if (enc === 'base64' || enc === 'b64') return Buffer.from(bytes.toString('latin1'), 'base64');
  if (enc === 'gzip' || enc === 'gz') {
    try {
      // Seed data is small (a few KiB at most); the sync call keeps this simple.
      return zlib().gunzipSync(bytes);
    } catch (err) {
      throw new ModuleError('seed_random', `random_seed.data is not valid gzip data: ${describeError(err)}`, { cause: err });
    }
  }
  throw new ModuleError('seed_random', `Unknown random_seed encoding: ${String(encoding)}`);
}

export const seedRandom: Module = {
  name: 'seed_random',
  stage: 'init',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: [],
  async run(ctx: ModuleContext, cfg: CloudConfig): Promise<void> {
    const raw = cfg.random_seed ?? {};
    if (typeof raw !== 'object' || Array.isArray(raw)) throw new ModuleError('seed_random', "'random_seed' must be a mapping");
    const my = raw as Record<string, unknown>;
    const seedPath = typeof my.file === 'string' && my.file ? my.file : '/dev/urandom';
    const parts: Buffer[] = [];
    if (my.data) parts.push(decode(my.data, my.encoding));
    const metaSeed = ctx.instance?.metadata?.random_seed;
    // The bytes the source read (OpenStack-style random_seed, base64 in the metadata and listed as such), else the text.
    const seedIsBytes = ctx.instance?.base64EncodedKeys?.includes('ds/meta_data/random_seed') === true;
    if (metaSeed !== undefined && metaSeed !== null) parts.push(seedIsBytes ? Buffer.from(String(metaSeed), 'base64') : Buffer.from(String(metaSeed), 'utf8'));
    const seed = Buffer.concat(parts);
    if (seed.length > 0) {
      ctx.log.debug(`seed_random: adding ${seed.length} bytes of random seed entropy to ${seedPath}`);
      if (seedPath === '/dev/urandom' && ctx.platform.root !== '/') {
        // A sandbox or image has no kernel of its own to feed; its /dev/urandom would be a plain file or the host's device.
        ctx.log.debug('seed_random: the target is not the running system, not writing to /dev/urandom');
      } else if (seedPath.startsWith('/dev/')) {
        await ctx.platform.run(['/bin/sh', '-c', 'cat >> "$1"', 'sh', seedPath], { input: seed.toString('latin1') });
      } else {
        await ctx.platform.writeFile(seedPath, seed, { append: true });
      }
    }
    const command = my.command;
    const required = cfgBool(my, 'command_required', false);
    const argv = Array.isArray(command) ? command.map(String) : typeof command === 'string' ? [command] : [];
    if (argv.length === 0) {
      if (required) throw new ModuleError('seed_random', 'random_seed.command: no command found but command_required=true');
      ctx.log.debug('no command provided');
      return;
    }
    const which = await ctx.platform.run(['/bin/sh', '-c', 'command -v "$1"', 'sh', argv[0] as string], { allowFailure: true });
    if (which.code !== 0) {
      if (required) throw new ModuleError('seed_random', `random_seed.command: command '${argv[0]}' not found but command_required=true`);
      ctx.log.debug(`command '${argv[0]}' not found for seed_command`);
      return;
    }
    const r = await ctx.platform.run(argv, { env: { RANDOM_SEED_FILE: seedPath }, allowFailure: true });
    await ctx.output(r.stdout + r.stderr);
    if (r.code !== 0) throw new ModuleError('seed_random', `random_seed.command '${argv.join(' ')}' exited with code ${r.code}`);
  },
};

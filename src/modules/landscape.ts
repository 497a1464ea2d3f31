// cc_landscape: installs landscape-client and registers it with landscape-config, its [client] settings merged as
// ConfigObj merges cloud-init's defaults, /etc/landscape/client.conf and the config (nothing is written).
import { pyRepr } from '../config/schema/python-repr';
import { pyTypeName } from '../util/python-type-name';
import { isMapping, OwnParser, type YamlMapping } from './support/config-readers';
import { configModule } from './support/config-module';
import { parseConfigObj } from './support/configobj-file';
import { installPackages } from './support/install-packages';
import { processExecutionMessage } from '../util/process-execution-message';
import { type ModuleContext, ModuleError, type Module } from './module';

export const LANDSCAPE_CLIENT_CONF = '/etc/landscape/client.conf';

/** cloud-init's built-in [client] defaults (LSC_BUILTIN_CFG), in its order. */
const BUILTIN_CLIENT: ReadonlyArray<readonly [string, string]> = [
  ['log_level', 'info'],
  ['url', 'https://landscape.canonical.com/message-system'],
  ['ping_url', 'http://landscape.canonical.com/ping'],
  ['data_path', '/var/lib/landscape/client'],
];

/** A Python exception the module raises, by its name (status.json shows it). */
function pyError(pythonName: string, message: string): ModuleError {
  return Object.assign(new ModuleError('landscape', message), { pythonName });
}

/** landscape as handle reads it: a mapping (kept as it is), else its RuntimeError with the Python type's name. */
function readLandscape(value: unknown): YamlMapping {
  if (!isMapping(value))
    throw pyError(
      'RuntimeError',
      `'landscape' key existed in config, but not a dictionary type, is a ${pyTypeName(value)} instead`,
    );
  return value;
}

/**
 * The [client] section of merge_together: the built-in defaults, then the file's [client] (ConfigObj's reading:
 * strings, a plain comma-separated value a list), then the config's client; a mapping merges into a mapping key by
 * key (a known key keeps its place), anything else replaces it.
 */
function mergedClient(fileText: string | undefined, ls: YamlMapping): unknown {
  let client: unknown = new Map<string, unknown>(BUILTIN_CLIENT);
  const merge = (from: unknown) => {
    if (client instanceof Map && (from instanceof Map || isMapping(from))) {
      for (const [k, v] of from instanceof Map ? from : Object.entries(from)) client.set(k, v);
    } else client = from;
  };
  if (fileText !== undefined) {
    const root = parseConfigObj('landscape', fileText).root;
    const section = root.sections.get('client');
    if (section) merge(section.scalars);
    else if (root.scalars.has('client')) merge(root.scalars.get('client'));
  }
  if (Object.hasOwn(ls, 'client')) merge(ls.client);
  return client;
}

/** subp's ProcessExecutionError as handle reports it: logged as a warning, then its RuntimeError. */
function registrationFailure(ctx: ModuleContext, text: string): ModuleError {
  const msg = `Failure registering client:\n${text}`;
  ctx.log.warn(msg);
  return pyError('RuntimeError', msg);
}

export const landscapeModule: Module = configModule({
  name: 'landscape',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: ['ubuntu'],
  activateBy: ['landscape'],
  // 25.1's module registers with any landscape mapping (its schema requires a client section with account_name and
  // computer_title) and does nothing for an empty one.
  configKeys: { landscape: new OwnParser(readLandscape) },
  async run(ctx, cfg): Promise<void> {
    const ls = cfg.landscape;
    if (ls === undefined || Object.keys(ls).length === 0) return;
    await installPackages(ctx, 'landscape', ['landscape-client']);
    // Later entries win: built-in defaults, then the file as it is (the package ships one), then the cloud-config.
    const client = mergedClient(await ctx.platform.readTextIfExists(LANDSCAPE_CLIENT_CONF), ls);
    if (!(client instanceof Map))
      throw pyError('AttributeError', `'${pyTypeName(client)}' object has no attribute 'items'`);
    const params = [...(client as Map<string, unknown>).entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .flatMap(([k, v]) => [`--${k.replace(/_/g, '-')}`, v]);
    // subp(..., rcs=[5]): exit 5 means "not registered yet"; exit 0 ("already registered") is an error it warns about.
    const checkArgv = ['landscape-config', '--silent', '--is-registered'];
    const check = await ctx.platform.run(checkArgv, { allowFailure: true });
    if (check.code === 0) {
      ctx.log.warn('Client already registered to Landscape');
      return;
    }
    if (check.code !== 5)
      throw registrationFailure(
        ctx,
        processExecutionMessage({ argv: checkArgv, code: check.code, stdout: check.stdout, stderr: check.stderr }),
      );
    const argv: unknown[] = ['landscape-config', '--silent', ...params];
    // subp refuses a command with a part that is not text (a number, a list …) before running it.
    if (argv.some((a) => typeof a !== 'string' && !(a instanceof Uint8Array))) {
      const reason = `Running invalid command: ${pyRepr(argv)}`;
      ctx.log.warn(reason);
      throw registrationFailure(ctx, processExecutionMessage({ argv: pyRepr(argv), reason }));
    }
    const r = await ctx.platform.run(
      argv.map((a) => (typeof a === 'string' ? a : Buffer.from(a as Uint8Array).toString('utf8'))),
      { allowFailure: true },
    );
    if (r.code !== 0)
      throw registrationFailure(
        ctx,
        processExecutionMessage({ argv: pyRepr(argv), code: r.code, stdout: r.stdout, stderr: r.stderr }),
      );
  },
});

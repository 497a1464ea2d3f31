// `schema -c FILE | --system [--annotate] [-t cloud-config|network-config]`: validates cloud-config or network config;
// errors name the key, the line and the column.
import { posix } from 'node:path';
import { loadCloudConfigValidator, loadNetworkConfigValidator, runtimeCompiler } from '../config/load-validators';
import type { SchemaProblem, ValidationResult } from '../config/validate-cloud-config';
import { loadRunConfig, readKernelCmdline } from '../runner/run-config';
import { UsageError } from '../util/errors';
import type { Command } from './command';
import { fsPromises } from '../util/on-demand-builtins';

function describeProblems(problems: SchemaProblem[]): string {
  return problems.map((p) => `${p.path} (line ${p.line}, column ${p.column}): ${p.message}`).join(', ');
}

export const schemaCommand: Command = {
  words: ['schema'],
  summary: 'validate cloud-config or network-config files against the schema',
  usage: 'schema (-c FILE | --system) [--annotate] [-t cloud-config|network-config]',
  faces: ['kiln', 'cloud-init'],
  positional: [0, 0],
  flags: {
    string: ['config-file', 'schema-type'],
    boolean: ['system', 'annotate', 'docs'],
    alias: { c: 'config-file', t: 'schema-type' },
    help: [
      '-c, --config-file F   the cloud-config file to check',
      '--system              check the user data and vendor data of this instance',
      '--annotate            print the document with the errors marked on their lines',
      '-t, --schema-type T   cloud-config (the default) or network-config (v1 or v2, with -c)',
    ],
  },
  async run(ctx, args) {
    const file = args.flags['config-file'] as string | undefined;
    const system = args.flags.system === true;
    if (!file && !system) throw new UsageError('expected one of --config-file or --system');
    if (file && system) throw new UsageError('--config-file and --system cannot be combined');
    const type = (args.flags['schema-type'] as string | undefined) ?? 'cloud-config';
    if (type !== 'cloud-config' && type !== 'network-config') throw new UsageError(`--schema-type must be cloud-config or network-config, not '${type}'`);
    if (type === 'network-config' && system) throw new UsageError('--schema-type network-config is checked with --config-file');
    const targets: Array<{ name: string; text: string | undefined; unreadable?: string }> = [];
    if (file) {
      // As cloud-init: a file that is not there "does not exist"; a folder or an unreadable file says what it is.
      const read = await fsPromises().readFile(file, 'utf8').then(
        (text) => ({ text }),
        (err: NodeJS.ErrnoException) => ({ text: undefined, unreadable: err.code === 'ENOENT' ? undefined : err.code === 'EISDIR' ? 'is a directory, not a file' : `cannot be read (${err.code ?? err.message})` }),
      );
      targets.push({ name: file, ...read });
    } else {
      const platform = ctx.platform();
      const rc = await loadRunConfig(platform, ctx.facts.defaultCloudConfig, await readKernelCmdline(platform));
      for (const [label, name] of [['user-data', 'user-data.txt'], ['vendor-data', 'vendor-data.txt']] as const) {
        const path = posix.join(rc.paths.instanceLink, name);
        const text = await platform.readTextIfExists(path);
        // Only cloud-config parts are checked; scripts and MIME archives are not cloud-config.
        if (text !== undefined && text.startsWith('#cloud-config')) targets.push({ name: `${label} ${path}`, text });
      }
      if (targets.length === 0) ctx.io.out('Found no cloud-config user data or vendor data to check\n');
    }
    const { annotate, validateCloudConfig } = await loadCloudConfigValidator();
    const compile = await runtimeCompiler(ctx.env);
    const check = async (text: string): Promise<ValidationResult & { skipped?: string }> => {
      if (type === 'cloud-config') return validateCloudConfig(text, { validators: compile?.('cloudConfig') });
      const { validateNetworkConfig } = await loadNetworkConfigValidator();
      return validateNetworkConfig(text, { validators: compile });
    };
    let bad = false;
    for (const t of targets) {
      if (t.text === undefined) {
        ctx.io.err(`Error: Config file ${t.name} ${t.unreadable ?? 'does not exist'}\n`);
        bad = true;
        continue;
      }
      const res = await check(t.text);
      if (res.skipped) {
        // As 25.1: the skip is said and the file is neither valid nor invalid.
        ctx.io.out(`${res.skipped}\n`);
        continue;
      }
      const errors = res.problems.filter((p) => p.kind === 'error');
      if (res.fatal) {
        ctx.io.err(`Error: ${t.name}: ${res.fatal}\n`);
        bad = true;
        continue;
      }
      const deprecations = res.problems.filter((p) => p.kind === 'deprecation');
      // As cloud-init 25.1: the annotated document when asked for, else the deprecations on stdout (never an error).
      if (args.flags.annotate && res.problems.length) ctx.io.out(`${annotate(t.text, res.problems)}\n`);
      else if (deprecations.length) ctx.io.out(`Cloud config schema deprecations: ${describeProblems(deprecations)}\n`);
      if (errors.length) {
        ctx.io.err(`Invalid ${t.name}\nError: Cloud config schema errors: ${describeProblems(errors)}\n`);
        bad = true;
      } else ctx.io.out(`Valid schema ${t.name}\n`);
    }
    return bad ? 1 : 0;
  },
};

// `schema -c FILE | --system [--annotate] [-t cloud-config|network-config]`: validates cloud-config or network config;
// errors name the key, the line and the column.
import { loadCloudConfigValidator, loadNetworkConfigValidator, runtimeCompiler } from '../config/load-validators';
import type { SchemaProblem, ValidationResult } from '../config/validate-cloud-config';
import { loadRunConfig, readKernelCmdline } from '../runner/run-config';
import { systemSchemaParts } from './schema-system-parts';
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
      '--system              check this instance: its processed user data (MIME parts merged), vendor data,',
      '                      vendor_data2 and network config',
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
    // What to check: the file given, or (--system) the instance's parts, as cloud-init 25.1 picks them.
    type Target = { label: string; path: string; schema: 'cloud-config' | 'network-config'; type?: string };
    let targets: Target[];
    if (file) targets = [{ label: file, path: file, schema: type }];
    else {
      const platform = ctx.platform();
      const rc = await loadRunConfig(platform, ctx.facts.defaultCloudConfig, await readKernelCmdline(platform));
      targets = (await systemSchemaParts(platform, rc.paths)).map((part) => ({ label: part.type, path: part.path, schema: part.schema, type: part.type }));
    }
    const read = async (t: Target): Promise<{ text?: string; problem?: string }> => {
      if (file) {
        // As cloud-init: a file that is not there "does not exist"; a folder or an unreadable file says what it is.
        return fsPromises().readFile(t.path, 'utf8').then(
          (text) => ({ text }),
          (err: NodeJS.ErrnoException) => ({ problem: err.code === 'ENOENT' ? 'does not exist' : err.code === 'EISDIR' ? 'is a directory, not a file' : `cannot be read (${err.code ?? err.message})` }),
        );
      }
      const text = await ctx.platform().readTextIfExists(t.path);
      return text === undefined ? { problem: 'does not exist' } : { text };
    };
    const first = targets[0] as Target;
    const firstRead = await read(first);
    if (firstRead.problem !== undefined) {
      ctx.io.err(`Error: Config file ${first.path} ${firstRead.problem}\n`);
      return 1;
    }
    const { annotate, validateCloudConfig } = await loadCloudConfigValidator();
    const compile = await runtimeCompiler(ctx.env);
    const check = async (text: string, schema: Target['schema']): Promise<ValidationResult & { skipped?: string }> => {
      if (schema === 'cloud-config') return validateCloudConfig(text, { validators: compile?.('cloudConfig') });
      const { validateNetworkConfig } = await loadNetworkConfigValidator();
      return validateNetworkConfig(text, { validators: compile });
    };
    // Several parts (--system): listed first, each under its number, its lines indented, as cloud-init 25.1 prints them.
    const multi = targets.length > 1;
    const prefix = multi ? '  ' : '';
    if (multi) ctx.io.out(`Found cloud-config data types: ${targets.map((t) => t.type).join(', ')}\n`);
    const invalid: string[] = [];
    for (const [i, t] of targets.entries()) {
      if (multi) ctx.io.out(`\n${i + 1}. ${t.type} at ${t.path}:\n`);
      const got = t === first ? firstRead : await read(t);
      if (got.text === undefined) {
        ctx.io.err(`${prefix}Error: Config file ${t.path} ${got.problem ?? 'does not exist'}\n`);
        invalid.push(t.label);
        continue;
      }
      if (got.text === '') {
        ctx.io.out(`${prefix}Empty '${t.schema}' found at ${t.path}. Nothing to validate.\n`);
        continue;
      }
      // --system: a part that is not cloud-config (a script, a raw archive left unprocessed) is not checked, as cloud-init.
      if (system && t.schema === 'cloud-config' && !got.text.startsWith('#cloud-config')) continue;
      const res = await check(got.text, t.schema);
      if (res.skipped) {
        // As 25.1: the skip is said and the file is neither valid nor invalid.
        ctx.io.out(`${prefix}${res.skipped}\n`);
        continue;
      }
      const errors = res.problems.filter((p) => p.kind === 'error');
      if (res.fatal) {
        ctx.io.err(`${system ? `${prefix}Invalid ${t.label} ${t.path}\n` : ''}${prefix}Error: ${t.path}: ${res.fatal}\n`);
        invalid.push(t.label);
        continue;
      }
      const deprecations = res.problems.filter((p) => p.kind === 'deprecation');
      // As cloud-init 25.1: the annotated document when asked for, else the deprecations on stdout (never an error).
      if (args.flags.annotate && res.problems.length) ctx.io.out(`${annotate(got.text, res.problems)}\n`);
      else if (deprecations.length) ctx.io.out(`${prefix}Cloud config schema deprecations: ${describeProblems(deprecations)}\n`);
      if (errors.length) {
        ctx.io.err(`${prefix}Invalid ${t.label}${system ? ` ${t.path}` : ''}\n${prefix}Error: Cloud config schema errors: ${describeProblems(errors)}\n`);
        invalid.push(t.label);
      } else ctx.io.out(`${prefix}Valid schema ${t.label}\n`);
    }
    if (system && invalid.length) ctx.io.err(`Error: Invalid schema: ${invalid.join(', ')}\n`);
    return invalid.length ? 1 : 0;
  },
};

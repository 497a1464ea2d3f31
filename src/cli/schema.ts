// `schema -c FILE | --system [--annotate] [-t cloud-config|network-config]`: validates cloud-config or network config;
// errors name the key, the line and the column.
import { loadCloudConfigValidator, loadNetworkConfigValidator, runtimeCompiler } from '../config/load-validators';
import type { SchemaProblem, ValidationResult } from '../config/validate-cloud-config';
import { loadRunConfig, readKernelCmdline } from '../runner/run-config';
import { systemSchemaParts } from './schema-system-parts';
import { TemplateError } from '../userdata/errors';
import { jinjaVariables } from '../userdata/jinja-context';
import { missingJinjaWarning, renderJinja } from '../userdata/jinja-render';
import { CT, typeFromStartsWith } from '../userdata/part-types';
import { UsageError } from '../util/errors';
import type { Command } from './command';
import { fsPromises } from '../util/on-demand-builtins';

/** The first lines cloud-init's schema accepts as user data (USERDATA_VALID_HEADERS), as it lists them. */
const USERDATA_VALID_HEADERS = [
  '#!',
  '## template: jinja',
  '#cloud-boothook',
  '#cloud-config',
  '#cloud-config-archive',
  '#cloud-config-jsonp',
  '#include',
  '#include-once',
  '#part-handler',
];

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
    string: ['config-file', 'schema-type', 'instance-data'],
    boolean: ['system', 'annotate', 'docs'],
    alias: { c: 'config-file', t: 'schema-type', i: 'instance-data' },
    help: [
      '-c, --config-file F   the cloud-config file to check',
      '--system              check this instance: its processed user data (MIME parts merged), vendor data,',
      '                      vendor_data2 and network config',
      '--annotate            print the document with the errors marked on their lines',
      '-t, --schema-type T   cloud-config (the default) or network-config (v1 or v2, with -c)',
      '-i, --instance-data F the instance data a `## template: jinja` user data is rendered with (default:',
      '                      /run/cloud-init/instance-data-sensitive.json, instance-data.json for non-root)',
    ],
  },
  async run(ctx, args) {
    const file = args.flags['config-file'] as string | undefined;
    const system = args.flags.system === true;
    if (!file && !system) throw new UsageError('expected one of --config-file or --system');
    if (file && system) throw new UsageError('--config-file and --system cannot be combined');
    const type = (args.flags['schema-type'] as string | undefined) ?? 'cloud-config';
    if (type !== 'cloud-config' && type !== 'network-config')
      throw new UsageError(`--schema-type must be cloud-config or network-config, not '${type}'`);
    if (type === 'network-config' && system)
      throw new UsageError('--schema-type network-config is checked with --config-file');
    // What to check: the file given, or (--system) the instance's parts, as cloud-init 25.1 picks them.
    // label: cloud-init's InstanceDataType, which -c gives as user-data (cloud-config) or network-config.
    type Target = { label: string; path: string; schema: 'cloud-config' | 'network-config'; type?: string };
    let targets: Target[];
    if (file) targets = [{ label: type === 'cloud-config' ? 'user-data' : 'network-config', path: file, schema: type }];
    else {
      const platform = ctx.platform();
      const rc = await loadRunConfig(platform, ctx.facts.defaultCloudConfig, await readKernelCmdline(platform));
      targets = (await systemSchemaParts(platform, rc.paths)).map((part) => ({
        label: part.type,
        path: part.path,
        schema: part.schema,
        type: part.type,
      }));
    }
    const read = async (t: Target): Promise<{ text?: string; problem?: string }> => {
      if (file) {
        // As cloud-init: a file that is not there "does not exist"; a folder or an unreadable file says what it is.
        return fsPromises()
          .readFile(t.path, 'utf8')
          .then(
            (text) => ({ text }),
            (err: NodeJS.ErrnoException) => ({
              problem:
                err.code === 'ENOENT'
                  ? 'does not exist'
                  : err.code === 'EISDIR'
                    ? 'is a directory, not a file'
                    : `cannot be read (${err.code ?? err.message})`,
            }),
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
      if (schema === 'cloud-config')
        return validateCloudConfig(text, { requireHeader: false, validators: compile?.('cloudConfig') });
      const { validateNetworkConfig } = await loadNetworkConfigValidator();
      return validateNetworkConfig(text, { validators: compile });
    };
    // Several parts (--system): listed first, each under its number, its lines indented, as cloud-init 25.1 prints
    // them.
    const multi = targets.length > 1;
    const prefix = multi ? '  ' : '';
    if (multi) ctx.io.out(`Found cloud-config data types: ${targets.map((t) => t.type).join(', ')}\n`);
    /**
     * A `## template: jinja` user data rendered as cloud-init's schema renders it (without its header line), with the
     * instance data given or the root's; undefined when it cannot be, said as cloud-init says it.
     */
    const renderedUserData = async (source: string, path: string): Promise<string | undefined> => {
      const platform = ctx.platform();
      const given = args.flags['instance-data'] as string | undefined;
      let dataPath = given;
      if (dataPath === undefined) {
        const rc = await loadRunConfig(platform, ctx.facts.defaultCloudConfig, await readKernelCmdline(platform));
        const root = typeof process.getuid === 'function' ? process.getuid() === 0 : true;
        dataPath = root ? rc.paths.instanceDataSensitiveFile : rc.paths.instanceDataFile;
      }
      const dataText =
        given !== undefined
          ? await fsPromises()
              .readFile(given, 'utf8')
              .catch(() => undefined)
          : await platform.readTextIfExists(dataPath);
      if (dataText === undefined) {
        ctx.io.err(`Error:\nCannot render jinja template vars. Instance data not yet present at ${dataPath}\n`);
        return undefined;
      }
      let data: unknown;
      try {
        data = JSON.parse(dataText);
      } catch {
        ctx.io.err('Error:\nLoading Jinja instance data failed\n'); // JSON.parse fails only on text that is not JSON: cloud-init's words for it
        return undefined;
      }
      const nl = source.indexOf('\n');
      try {
        const rendered = renderJinja(
          nl < 0 ? '' : source.slice(nl + 1),
          jinjaVariables(data as Record<string, unknown>),
        );
        const warning = missingJinjaWarning(path, rendered);
        if (warning) ctx.io.err(`WARNING: ${warning}\n`);
        return rendered;
      } catch (err) {
        if (!(err instanceof TemplateError)) throw err;
        ctx.io.err(`Error:\nFailed to render templated user-data. line ${err.line + 1}: ${err.reason}\n`);
        return undefined;
      }
    };
    const invalid: string[] = [];
    /** cloud-init's SchemaValidationError: the heading on stdout (not with --annotate), the error on stderr. */
    const invalidPart = (t: Target, message: string, annotated = false): void => {
      if (!annotated) {
        ctx.io.out(`${prefix}Invalid ${t.label} ${t.path}\n`);
        ctx.io.err(`${prefix}Error: ${message}\n\n`);
      }
      invalid.push(t.label);
    };
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
      // As cloud-init 25.1's validate_cloudconfig_file: user data of another known type (a script, an archive) is not
      // checked and says nothing; a first line of no known type is the error.
      let text = got.text;
      if (t.schema === 'cloud-config') {
        let header = typeFromStartsWith(text);
        let position = 'format-l1.c1';
        if (header === CT.jinja) {
          const rendered = await renderedUserData(text, t.path);
          if (rendered === undefined) return 1;
          text = rendered;
          header = typeFromStartsWith(text);
          position = 'format-l2.c1';
        }
        if (header === undefined) {
          const first = text.split('\n')[0] ?? '';
          invalidPart(
            t,
            `Cloud config schema errors: ${position}: Unrecognized user-data header in ${t.path}: "${first}".\nExpected first line to be one of: ${USERDATA_VALID_HEADERS.join(', ')}`,
          );
          continue;
        }
        if (header !== CT.cloudConfig) {
          ctx.io.out(`${prefix}User-data type '${header}' not currently evaluated by cloud-init schema\n`);
          continue;
        }
      }
      const res = await check(text, t.schema);
      if (res.skipped) {
        // As 25.1: the skip is said and the file is neither valid nor invalid.
        ctx.io.out(`${prefix}${res.skipped}\n`);
        continue;
      }
      const errors = res.problems.filter((p) => p.kind === 'error');
      if (res.yamlError) {
        const { line, column, reason } = res.yamlError;
        invalidPart(
          t,
          `Cloud config schema errors: format-l${line}.c${column}: File ${t.path} is not valid YAML. ${reason}`,
        );
        continue;
      }
      if (res.fatal) {
        // Not a mapping: cloud-init's RuntimeError, its heading without the path.
        ctx.io.out(`${prefix}Invalid ${t.label}\n`);
        ctx.io.err(`${prefix}Error: ${t.schema} ${t.path} is not a YAML dict.\n\n`);
        invalid.push(t.label);
        continue;
      }
      const deprecations = res.problems.filter((p) => p.kind === 'deprecation');
      // As cloud-init 25.1: the annotated document when asked for, else the deprecations on stdout (never an error).
      if (args.flags.annotate && res.problems.length) ctx.io.out(`${annotate(got.text, res.problems)}\n`);
      else if (deprecations.length)
        ctx.io.out(`${prefix}Cloud config schema deprecations: ${describeProblems(deprecations)}\n`);
      if (errors.length)
        invalidPart(t, `Cloud config schema errors: ${describeProblems(errors)}`, args.flags.annotate === true);
      else ctx.io.out(`${prefix}Valid schema ${file ? t.path : t.label}\n`);
    }
    // print()'s line break after each error's own: a blank line follows it, as in cloud-init's output.
    if (invalid.length) ctx.io.err(`Error: Invalid schema: ${invalid.join(', ')}\n\n`);
    return invalid.length ? 1 : 0;
  },
};

// `query [--all | --list-keys | VARNAME | --format TEMPLATE]`: reads instance data as cloud-init query does.
import { loadRunConfig, readKernelCmdline } from '../runner/run-config';
import { formatValue, loadQueryData, lookupKey, QueryError, renderQueryTemplate } from '../runner/query-instance-data';
import { missingJinjaWarning } from '../userdata/jinja-render';
import { UsageError } from '../util/errors';
import type { Command } from './command';
import { commandHelp } from './help';
import { fsPromises } from '../util/on-demand-builtins';

export const queryCommand: Command = {
  words: ['query'],
  summary: 'query standardized instance metadata from the command line',
  usage:
    'query [--all | --list-keys | VARNAME | --format TEMPLATE] [--instance-data FILE] [--user-data FILE] [--vendor-data FILE]',
  faces: ['kiln', 'cloud-init'],
  positional: [0, 1],
  flags: {
    boolean: ['all', 'list-keys'],
    string: ['format', 'instance-data', 'user-data', 'vendor-data'],
    alias: { a: 'all', f: 'format', i: 'instance-data', l: 'list-keys', u: 'user-data', v: 'vendor-data' },
    help: [
      '-a, --all               dump all instance data as JSON',
      '-l, --list-keys         list the keys at the top level (or under VARNAME)',
      '-f, --format TEMPLATE   render a jinja-style template such as "{{ v1.cloud_name }}"',
      '-i, --instance-data F   read F instead of /run/cloud-init/instance-data(-sensitive).json',
      "-u, --user-data F       user data file (default: the instance's user-data.txt, root only)",
      '-v, --vendor-data F     vendor data file',
    ],
  },
  async run(ctx, args) {
    const varname = args.positional[0];
    const all = args.flags.all === true;
    const listKeys = args.flags['list-keys'] === true;
    const format = args.flags.format as string | undefined;
    if (!all && !listKeys && !format && varname === undefined) {
      // As cloud-init's query: the error, then the command's help, and exit 1.
      ctx.io.err('ERROR: Expected one of the options: --all, --format, --list-keys or varname\n');
      ctx.io.out(commandHelp(ctx.face, queryCommand));
      return 1;
    }
    if ((all && (listKeys || format)) || (format && varname !== undefined))
      throw new UsageError('--all, --list-keys, --format and VARNAME cannot be combined that way');
    const platform = ctx.platform();
    const rc = await loadRunConfig(platform, ctx.facts.defaultCloudConfig, await readKernelCmdline(platform));
    const privileged = typeof process.getuid === 'function' ? process.getuid() === 0 : true;
    let doc: Record<string, unknown>;
    try {
      doc = await loadQueryData({
        platform,
        paths: rc.paths,
        privileged,
        instanceDataFile: args.flags['instance-data'] as string | undefined,
        userDataFile: args.flags['user-data'] as string | undefined,
        vendorDataFile: args.flags['vendor-data'] as string | undefined,
        readHostFile: (p) => fsPromises().readFile(p, 'utf8'),
        warn: (message) => ctx.io.err(`WARNING: ${message}\n`),
      });
    } catch (err) {
      if (err instanceof QueryError) {
        ctx.io.err(`ERROR: ${err.message}\n`);
        return 1;
      }
      throw err;
    }
    if (format) {
      const rendered = renderQueryTemplate(format, doc);
      const warning = missingJinjaWarning('query command line', rendered);
      if (warning) ctx.io.err(`WARNING: ${warning}\n`);
      // cloud-init prints a rendering only when it is not empty, and answers 1 otherwise.
      if (rendered === '') return 1;
      ctx.io.out(`${rendered}\n`);
      return 0;
    }
    let value: unknown = doc;
    if (varname !== undefined) {
      const hit = lookupKey(doc, varname);
      if (!hit.found) {
        ctx.io.err(`ERROR: ${hit.message}\n`);
        return 1;
      }
      value = hit.value;
    }
    if (listKeys) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        ctx.io.err(`ERROR: --list-keys provided but '${varname}' is not a dict\n`);
        return 1;
      }
      ctx.io.out(`${Object.keys(value).sort().join('\n')}\n`);
      return 0;
    }
    ctx.io.out(`${formatValue(value)}\n`);
    return 0;
  },
};

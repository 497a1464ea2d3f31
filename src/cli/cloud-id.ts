// `cloud-id [--json] [--long]`: the canonical cloud id of this instance, read from instance-data.json.
import { readBootStatus } from '../runner/read-boot-status';
import { loadRunConfig, readKernelCmdline } from '../runner/run-config';
import { pythonJson } from '../runner/sorted-json';
import type { Command } from './command';
import { fsPromises } from '../util/on-demand-builtins';

/** The region as Python's "%s" prints v1.get('region', 'unknown'): a JSON null is None. */
function pythonStr(region: unknown): string {
  if (region === undefined) return 'unknown';
  if (region === null) return 'None';
  return typeof region === 'string' ? region : JSON.stringify(region);
}

export const cloudIdCommand: Command = {
  words: ['cloud-id'],
  summary: 'print the canonical cloud id of this instance (aws, openstack, nocloud …)',
  usage: 'cloud-id [--json] [--long] [--instance-data FILE]',
  faces: ['kiln', 'cloud-init'],
  positional: [0, 0],
  flags: {
    boolean: ['json', 'long'],
    string: ['instance-data'],
    alias: { j: 'json', l: 'long', i: 'instance-data' },
    help: [
      '-j, --json              all standardized v1 keys as JSON',
      '-l, --long              cloud id and region, tab-separated',
      '-i, --instance-data F   read F instead of /run/cloud-init/instance-data.json',
    ],
  },
  async run(ctx, args) {
    const platform = ctx.platform();
    const embedded = ctx.facts.defaultCloudConfig;
    const st = await readBootStatus(platform, embedded);
    // As cloud-init 25.1's cloud-id: the running status, when it is one of these two, is the answer.
    if (st.running === 'disabled') {
      ctx.io.out('disabled\n');
      return 2;
    }
    if (st.running === 'not started') {
      ctx.io.out('not started\n');
      return 3;
    }
    const rc = await loadRunConfig(platform, embedded, await readKernelCmdline(platform));
    const given = args.flags['instance-data'] as string | undefined;
    const file = given ?? rc.paths.instanceDataFile;
    const text = given
      ? await fsPromises()
          .readFile(given, 'utf8')
          .catch(() => undefined)
      : await platform.readTextIfExists(file);
    if (text === undefined) {
      ctx.io.err(`ERROR: File not found '${file}'. Provide a path to instance data json file using --instance-data\n`);
      return 1;
    }
    let v1: Record<string, unknown>;
    try {
      v1 = ((JSON.parse(text) as { v1?: Record<string, unknown> }).v1 ?? {}) as Record<string, unknown>;
    } catch {
      ctx.io.err(`ERROR: File '${file}' is not valid json.\n`); // not JSON (or JSON null, which has no v1): what this says
      return 1;
    }
    const id = String(v1.cloud_id ?? v1.cloud_name ?? 'unknown');
    if (args.flags.json) {
      ctx.io.err('DEPRECATED: Use: cloud-init query v1\n');
      ctx.io.out(`${pythonJson({ ...v1, cloud_id: id })}\n`);
    } else if (args.flags.long) ctx.io.out(`${id}\t${pythonStr(v1.region)}\n`);
    else ctx.io.out(`${id}\n`);
    return 0;
  },
};

// `devel render`: renders a `## template: jinja` user data with instance data, as `cloud-init devel render`.
import { jinjaVariables } from '../userdata/jinja-context';
import { missingJinjaWarning, renderJinja } from '../userdata/jinja-render';
import { TemplateError } from '../userdata/errors';
import { describeError, KilnError, UsageError } from '../util/errors';
import type { Command } from './command';
import { fsPromises } from '../util/on-demand-builtins';

const JINJA_HEADER = /^## template:\s*jinja[^\n]*\n?/i;

export const develRenderCommand: Command = {
  words: ['devel', 'render'],
  summary: 'render a jinja user-data template with instance data',
  usage: 'devel render USER_DATA [-i INSTANCE_DATA]',
  faces: ['kiln', 'cloud-init'],
  positional: [1, 1],
  flags: {
    string: ['instance-data'],
    alias: { i: 'instance-data' },
    help: [
      '-i, --instance-data FILE  instance data JSON (default: /run/cloud-init/instance-data-sensitive.json, then instance-data.json, in the target root)',
    ],
  },
  async run(ctx, args) {
    const file = args.positional[0] as string;
    let text: string;
    try {
      text = await fsPromises().readFile(file, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read ${file}: ${describeError(err)}`);
    }
    if (!JINJA_HEADER.test(text))
      throw new KilnError(`${file} is not a jinja template: its first line must be '## template: jinja'`);
    const given = args.flags['instance-data'] as string | undefined;
    let dataText: string | undefined;
    let dataPath: string;
    if (given) {
      dataPath = given;
      dataText = await fsPromises()
        .readFile(given, 'utf8')
        .catch(() => undefined);
    } else {
      const p = ctx.platform();
      dataPath = '/run/cloud-init/instance-data-sensitive.json';
      dataText = await p.readTextIfExists(dataPath).catch(() => undefined);
      if (dataText === undefined) {
        dataPath = '/run/cloud-init/instance-data.json';
        dataText = await p.readTextIfExists(dataPath).catch(() => undefined);
      }
    }
    if (dataText === undefined) throw new KilnError(`missing instance data file: ${dataPath} (give one with -i)`);
    let data: unknown;
    try {
      data = JSON.parse(dataText);
    } catch (err) {
      throw new KilnError(`${dataPath} is not valid JSON: ${describeError(err)}`);
    }
    if (!data || typeof data !== 'object' || Array.isArray(data))
      throw new KilnError(`${dataPath} must hold a JSON object`);
    try {
      const out = renderJinja(text.replace(JINJA_HEADER, ''), jinjaVariables(data as Record<string, unknown>));
      const warning = missingJinjaWarning(file, out);
      if (warning) ctx.io.err(`WARNING: ${warning}\n`);
      ctx.io.out(out.endsWith('\n') ? out : `${out}\n`);
    } catch (err) {
      if (err instanceof TemplateError) throw new KilnError(`${file}:${err.line + 1}: ${err.reason}`);
      throw err;
    }
    return 0;
  },
};

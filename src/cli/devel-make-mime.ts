// `devel make-mime`: builds a multipart user data from files, as `cloud-init devel make-mime` does.
import { randomBytes } from 'node:crypto';
import { buildMultipart, type MimePartInput } from '../userdata/mime';
import { SHORT_TYPES } from '../userdata/part-types';
import { describeError, UsageError } from '../util/errors';
import type { Command } from './command';
import { fsPromises } from '../util/on-demand-builtins';

export const develMakeMimeCommand: Command = {
  words: ['devel', 'make-mime'],
  summary: 'build a multipart MIME user data from files and their types',
  usage: 'devel make-mime -a FILE:TYPE [-a FILE:TYPE …] [--force] | --list-types',
  faces: ['kiln', 'cloud-init'],
  positional: [0, 0],
  flags: {
    string: ['attach'],
    boolean: ['list-types', 'force'],
    alias: { a: 'attach', l: 'list-types', f: 'force' },
    repeatable: ['attach'],
    help: [
      '-a, --attach FILE:TYPE  add FILE as a part of TYPE (e.g. cloud-config, x-shellscript, x-shellscript-per-boot)',
      '-l, --list-types        list the part types cloud-init handles',
      '-f, --force             accept a TYPE cloud-init does not handle',
    ],
  },
  async run(ctx, args) {
    if (args.flags['list-types']) {
      ctx.io.out(`${Object.keys(SHORT_TYPES).sort().join('\n')}\n`);
      return 0;
    }
    const raw = args.flags.attach;
    const attach = raw === undefined ? [] : Array.isArray(raw) ? raw : [String(raw)];
    if (attach.length === 0) throw new UsageError('give at least one -a FILE:TYPE (or --list-types)');
    const parts: MimePartInput[] = [];
    for (const spec of attach) {
      const colon = spec.lastIndexOf(':');
      if (colon <= 0 || colon === spec.length - 1) throw new UsageError(`-a takes FILE:TYPE, not '${spec}'`);
      const file = spec.slice(0, colon);
      let type = spec.slice(colon + 1).toLowerCase();
      if (type.startsWith('text/')) type = type.slice(5);
      if (!SHORT_TYPES[type] && !args.flags.force) {
        throw new UsageError(
          `content type 'text/${type}' for ${file} is not one cloud-init handles (see --list-types; --force to use it anyway)`,
        );
      }
      let content: Buffer;
      try {
        content = await fsPromises().readFile(file);
      } catch (err) {
        throw new UsageError(`cannot read ${file}: ${describeError(err)}`);
      }
      parts.push({ contentType: `text/${type}`, filename: file.split(/[\\/]/).pop() as string, content });
    }
    let boundary = '';
    for (let i = 0; i < 5; i++) {
      boundary = `===============${randomBytes(10).toString('hex')}==`;
      if (!parts.some((p) => Buffer.from(p.content).includes(boundary))) break;
    }
    ctx.io.out(buildMultipart(parts, boundary));
    return 0;
  },
};

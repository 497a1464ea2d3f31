// `version [--long]`: what this binary is and, with --long, what it runs on.
import { KILN_CLOUD_INIT_VERSION } from '../build-info';
import type { Command } from './command';
import type { Face } from './face';
import { invokedPath } from './invoked-path';

export const versionCommand: Command = {
  words: ['version'],
  summary: 'print the version; --long adds build target, Node and OS versions',
  usage: 'version [--long]',
  faces: ['kiln', 'cloud-init', 'cloudbase-init'],
  positional: [0, 0],
  flags: { boolean: ['long'], help: ['--long   also print build target, Node version and the OS version'] },
  async run(ctx, args) {
    if (!args.flags.long) {
      ctx.io.out(`${shortVersion(ctx.face, ctx.facts.version, ctx.argv0, ctx.env.PATH)}\n`);
      return 0;
    }
    const os = await ctx.platform().osVersion();
    ctx.io.out(
      `${[
        `kiln ${ctx.facts.version}`,
        `cloud-init: ${KILN_CLOUD_INIT_VERSION}`,
        `target: ${ctx.facts.target.name}`,
        `node: ${process.version}`,
        `os: ${os.pretty}`,
        `os-version: ${os.version}`,
        `os-version-source: ${os.source}`,
        ...(os.kernel ? [`kernel: ${os.kernel}`] : []),
      ].join('\n')}\n`,
    );
    return 0;
  },
};

/**
 * `--version` output. The cloud-init face prints what cloud-init prints (argparse's `%(prog)s <version>`: the
 * path it was started by, then the cloud-init release whose behaviour kiln reproduces), so tools that gate on
 * `cloud-init --version` read that release; kiln's own version follows in parentheses. kiln's face leads with its
 * own version and names the cloud-init release beside it.
 */
export function shortVersion(face: Face, version: string, argv0: string, path: string | undefined): string {
  if (face === 'cloud-init') return `${invokedPath(argv0, path)} ${KILN_CLOUD_INIT_VERSION} (kiln ${version})`;
  if (face === 'kiln') return `kiln ${version} (cloud-init ${KILN_CLOUD_INIT_VERSION})`;
  return `${face} ${version} (kiln)`;
}

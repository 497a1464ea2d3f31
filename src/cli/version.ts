// `version [--long]`: what this binary is and, with --long, what it runs on.
import type { Command } from './command';

export const versionCommand: Command = {
  words: ['version'],
  summary: 'print the version; --long adds build target, Node and OS versions',
  usage: 'version [--long]',
  faces: ['kiln', 'cloud-init', 'cloudbase-init'],
  positional: [0, 0],
  flags: { boolean: ['long'], help: ['--long   also print build target, Node version and the OS version'] },
  async run(ctx, args) {
    if (!args.flags.long) {
      ctx.io.out(`${shortVersion(ctx.face, ctx.facts.version)}\n`);
      return 0;
    }
    const os = await ctx.platform().osVersion();
    ctx.io.out(
      [
        `kiln ${ctx.facts.version}`,
        `target: ${ctx.facts.target.name}`,
        `node: ${process.version}`,
        `os: ${os.pretty}`,
        `os-version: ${os.version}`,
        `os-version-source: ${os.source}`,
        ...(os.kernel ? [`kernel: ${os.kernel}`] : []),
      ].join('\n') + '\n',
    );
    return 0;
  },
};

/** `--version` output; the cloud-init face prints `/usr/bin/cloud-init <version>` like cloud-init does. */
export function shortVersion(face: string, version: string): string {
  return face === 'cloud-init' ? `/usr/bin/cloud-init ${version} (kiln)` : `${face} ${version} (kiln)`;
}

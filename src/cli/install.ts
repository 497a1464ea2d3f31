// `kiln install` and `kiln uninstall`: the running binary installs itself (Linux: as cloud-init under systemd;
// Windows: as the cloudbase-init service) into the root, or takes out again exactly what it put there.
import { readFile } from 'node:fs/promises';
import { installLinux, uninstallLinux } from '../install/linux-install';
import { installWindows, uninstallWindows } from '../install/windows-install';
import type { Command, CommandContext } from './command';

/** The bytes of the executable running now: a kiln binary installs itself. */
function runningBinary(): Promise<Uint8Array> {
  return readFile(process.execPath);
}

/** What install and uninstall report having done, and how a dry run words it (nothing of it happened). */
const CONDITIONAL: Record<string, string> = {
  installed: 'would install',
  enabled: 'would enable',
  wrote: 'would write',
  removed: 'would remove',
  kept: 'would keep',
  masked: 'would mask',
};

function say(ctx: CommandContext): (line: string) => void {
  return (line) => ctx.io.out(`${ctx.dryRun ? line.replace(/^(\w+)/, (verb) => CONDITIONAL[verb] ?? verb) : line}\n`);
}

export const installCommand: Command = {
  words: ['install'],
  summary:
    'install this binary into the root: as cloud-init with its systemd units (Linux), or as the cloudbase-init service (Windows)',
  usage: 'install [--no-enable] [--replace]',
  faces: ['kiln'],
  positional: [0, 0],
  flags: {
    boolean: ['no-enable', 'replace'],
    help: [
      'Linux: /usr/bin/kiln, /usr/bin/cloud-init and cloud-id (links to it), the systemd units, the generator and',
      '  /usr/lib/cloud-init/hook-hotplug (run by the udev rule install_hotplug writes; cloud-init-hotplugd.socket serves it);',
      '  with --root DIR the units are enabled by links, as `systemctl enable` makes them; on a live system systemctl does it.',
      'Windows: kiln.exe and its confs in C:\\Program Files\\Cloudbase Solutions\\Cloudbase-Init, SetupComplete.cmd, and the service.',
      "  Enabled as Debian 13's cloud-init 25.1 enables them: cloud-init-main.service (every stage in one process),",
      '  the four stage units it waits for, and cloud-init-hotplugd.socket.',
      '--no-enable               install the units without enabling them (Linux)',
      "--replace                 take over the names where Debian's cloud-init package is installed (its files stay) (Linux)",
    ],
  },
  async run(ctx, args) {
    const platform = ctx.platform();
    const files = ctx.facts.installFiles;
    if (platform.os === 'windows') {
      await installWindows({ platform, files, binary: runningBinary, say: say(ctx) });
      return 0;
    }
    await installLinux({
      platform,
      files,
      binary: runningBinary,
      enable: args.flags['no-enable'] !== true,
      replace: args.flags.replace === true,
      say: say(ctx),
    });
    return 0;
  },
};

export const uninstallCommand: Command = {
  words: ['uninstall'],
  summary: 'remove what `kiln install` put into the root (and the links that enabled its units)',
  usage: 'uninstall',
  faces: ['kiln'],
  positional: [0, 0],
  flags: {
    help: [
      "Files are removed only where they are kiln's (same text, links to kiln); names diverted from Debian's",
      'cloud-init package are given back to it. Windows: the service, kiln.exe and the confs it installed.',
    ],
  },
  async run(ctx) {
    const platform = ctx.platform();
    const files = ctx.facts.installFiles;
    if (platform.os === 'windows')
      await uninstallWindows({ platform, files, say: say(ctx), running: process.execPath });
    else await uninstallLinux({ platform, files, say: say(ctx) });
    return 0;
  },
};

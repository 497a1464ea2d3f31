// `--all-stages` with no datasource present: kiln on an empty sandbox root, then kiln beside Debian's cloud-init
// 22.4 inside a copy of the cached Debian rootfs (as root, under unshare + chroot with no network).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyRootfs, ROOTFS_CACHE } from '../helpers/debian-rootfs';
import { builtBinary } from '../helpers/repo';
import { medianMs, printTable } from './measure';
import { removeTree } from '../helpers/overlay-copy';

const bin = builtBinary('kiln-linux-x64');
if (!bin) {
  console.log('dist/kiln-linux-x64 is not built; run npm run build first');
  process.exit(1);
}
// Sources that look for a seed or a config drive only: none is there, so every stage finds nothing.
const NO_DATASOURCE = 'datasource_list: [NoCloud, ConfigDrive]\n';
const rows: string[][] = [];

const empty = mkdtempSync(join(tmpdir(), 'kiln-bench-'));
const fresh = () => {
  rmSync(empty, { recursive: true, force: true });
  mkdirSync(join(empty, 'etc/cloud/cloud.cfg.d'), { recursive: true });
  writeFileSync(join(empty, 'etc/cloud/cloud.cfg.d/99-bench.cfg'), NO_DATASOURCE);
};
const kilnEmpty = medianMs(9, () => {
  fresh();
  spawnSync(bin, ['--root', empty, '--all-stages'], { env: { ...process.env, KILN_FACE: 'cloud-init' } });
});
rows.push(['kiln --all-stages, empty --root', kilnEmpty.toFixed(0), kilnEmpty < 1000 ? 'yes' : 'NO']);
rmSync(empty, { recursive: true, force: true });

const isRoot = process.getuid?.() === 0;
const haveRootfs = existsSync(join(ROOTFS_CACHE, 'bookworm-cloud-init', '.kiln-rootfs-ok'));
if (isRoot && haveRootfs) {
  const root = copyRootfs(mkdtempSync(join(tmpdir(), 'kiln-bench-rootfs-')));
  try {
    writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/99-bench.cfg'), NO_DATASOURCE);
    copyFileSync(bin, join(root, 'usr/bin/kiln'));
    const reset = () =>
      spawnSync('sh', ['-c', `rm -rf ${root}/var/lib/cloud/* ${root}/run/cloud-init ${root}/var/log/cloud-init*.log`]);
    const inRoot = (script: string) =>
      spawnSync(
        'unshare',
        [
          '--uts',
          '--ipc',
          '--mount',
          '--pid',
          '--net',
          '--fork',
          '--kill-child',
          'chroot',
          root,
          '/bin/sh',
          '-c',
          script,
        ],
        { timeout: 300_000 },
      );
    const kiln = medianMs(5, () => {
      reset();
      inRoot('KILN_FACE=cloud-init /usr/bin/kiln --all-stages >/dev/null 2>&1');
    });
    rows.push(['kiln --all-stages, Debian rootfs (chroot)', kiln.toFixed(0), kiln < 1000 ? 'yes' : 'NO']);
    const python = medianMs(3, () => {
      reset();
      inRoot(
        'cloud-init init --local; cloud-init init; cloud-init modules --mode config; cloud-init modules --mode final) >/dev/null 2>&1'.replace(
          /^/,
          '(',
        ),
      );
    });
    rows.push(["Debian's cloud-init 22.4, the four stages (chroot)", python.toFixed(0), '']);
    rows.push(['speed-up', `${(python / kiln).toFixed(1)}x`, '']);
  } finally {
    removeTree(root);
  }
} else {
  rows.push(["Debian's cloud-init (skipped: needs root and the cached rootfs)", '', '']);
}
printTable(['run (no datasource present)', 'median ms', 'under 1 s'], rows);

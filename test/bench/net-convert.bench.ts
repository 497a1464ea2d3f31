// `kiln devel net-convert` (the built binary) beside Debian's `cloud-init devel net-convert` (22.4, in a chroot) on the
// whole network fixture corpus, per renderer: wall time for the corpus and per conversion.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { RendererName } from '../../src/net/renderer';
import { copyRootfs } from '../helpers/debian-rootfs';
import { builtBinary } from '../helpers/repo';
import { hasCommand, isRoot } from '../helpers/requirements';
import { distroFor, loadCases } from '../net/fixture-cases';
import { printTable } from './measure';
import { removeTree } from '../helpers/overlay-copy';

const bin = builtBinary('kiln-linux-x64');
if (!bin) {
  console.log('dist/kiln-linux-x64 is not built; run `node build.mjs linux-x64` first');
  process.exit(1);
}
const withCloudInit = isRoot() && hasCommand('unshare') && hasCommand('debootstrap');
if (!withCloudInit) console.log('cloud-init column skipped: needs root, unshare and debootstrap for the Debian rootfs');

const work = mkdtempSync(join(tmpdir(), 'kiln-net-bench-'));
const root = withCloudInit ? copyRootfs(mkdtempSync(join(tmpdir(), 'kiln-net-bench-rootfs-'))) : undefined;
try {
  const cases = loadCases().filter((c) => c.cliKind !== 'ec2'); // net-convert has no EC2 kind in cloud-init
  if (root) {
    for (const c of cases) {
      mkdirSync(join(root, 'tmp/bench', c.name), { recursive: true });
      copyFileSync(c.input, join(root, 'tmp/bench', c.name, relative(c.dir, c.input)));
    }
  }
  const renderers: RendererName[] = ['eni', 'netplan', 'networkd', 'sysconfig', 'network-manager'];
  const rows: string[][] = [];
  for (const renderer of renderers) {
    const mine = cases.filter((c) => c.renderers.includes(renderer));
    const args = (c: (typeof mine)[number], input: string, out: string) => [
      'devel',
      'net-convert',
      '-p',
      input,
      '-k',
      c.cliKind,
      '-d',
      out,
      '-D',
      distroFor(c, renderer),
      '-O',
      renderer,
      ...Object.entries(c.macs).flatMap(([n, m]) => ['-m', `${n},${m}`]),
    ];
    let t = performance.now();
    for (const c of mine) {
      const r = spawnSync(bin, args(c, c.input, join(work, 'kiln', c.name, renderer)), {
        env: { ...process.env, KILN_FACE: 'cloud-init' },
      });
      if (r.status !== 0) throw new Error(`kiln failed on ${c.name}/${renderer}: ${r.stderr}`);
    }
    const kilnMs = performance.now() - t;
    let ciMs = NaN;
    if (root) {
      // One unshare+chroot per conversion, as a boot would start one cloud-init process.
      t = performance.now();
      for (const c of mine) {
        const r = spawnSync('unshare', [
          '--uts',
          '--ipc',
          '--mount',
          '--pid',
          '--net',
          '--fork',
          '--kill-child',
          'chroot',
          root,
          'cloud-init',
          ...args(c, `/tmp/bench/${c.name}/${relative(c.dir, c.input)}`, `/tmp/bench-out/${c.name}/${renderer}`),
        ]);
        if (r.status !== 0) throw new Error(`cloud-init failed on ${c.name}/${renderer}: ${r.stderr}`);
      }
      ciMs = performance.now() - t;
    }
    const per = (ms: number) => (Number.isNaN(ms) ? '-' : (ms / mine.length).toFixed(0));
    rows.push([
      renderer,
      String(mine.length),
      kilnMs.toFixed(0),
      Number.isNaN(ciMs) ? '-' : ciMs.toFixed(0),
      per(kilnMs),
      per(ciMs),
      Number.isNaN(ciMs) ? '-' : `${(ciMs / kilnMs).toFixed(1)}x`,
    ]);
  }
  printTable(
    [
      'renderer',
      'inputs',
      'kiln total ms',
      'cloud-init total ms',
      'kiln ms/conv',
      'cloud-init ms/conv',
      'kiln faster by',
    ],
    rows,
  );
} finally {
  removeTree(work);
  if (root) removeTree(root);
}

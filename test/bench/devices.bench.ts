// Time to find and read openstack/latest/meta_data.json from a 64 MiB FAT config drive and from a genisoimage
// ISO, in-process with our readers, beside mount -o loop + read + umount (inside `unshare --mount` only).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImageFilesFinder } from '../../src/devices/image-finder';
import { writeFat } from '../../src/devices/fat-writer';
import { hasCommand } from '../helpers/requirements';
import { medianMs, medianMsAsync, printTable } from './measure';

const META = 'openstack/latest/meta_data.json';
const dir = mkdtempSync(join(tmpdir(), 'kiln-bench-devices-'));
try {
  const src = join(dir, 'src');
  const files: Record<string, string> = {
    [META]: JSON.stringify({
      uuid: '83679162-1378-4288-a2d4-70e13ec132aa',
      hostname: 'bench',
      public_keys: { k: 'ssh-ed25519 AAAA' },
    }),
    'openstack/latest/network_data.json': '{"links":[],"networks":[],"services":[]}',
    'openstack/latest/user_data': '#cloud-config\n',
    'openstack/2012-08-10/meta_data.json': '{}',
    'ec2/latest/meta-data.json': '{}',
  };
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(src, p, '..'), { recursive: true });
    writeFileSync(join(src, p), text);
  }
  const images: Array<{ name: string; path: string; fstype: string }> = [];
  const vfat = join(dir, 'config-2.vfat');
  if (hasCommand('mkfs.vfat') && hasCommand('mcopy')) {
    spawnSync('mkfs.vfat', ['-n', 'config-2', '-C', vfat, String(64 * 1024)]);
    spawnSync('mcopy', ['-s', '-i', vfat, join(src, 'openstack'), join(src, 'ec2'), '::/']);
    images.push({ name: '64 MiB vfat config drive (mkfs.vfat + mcopy)', path: vfat, fstype: 'vfat' });
  } else {
    writeFileSync(
      vfat,
      writeFat(
        Object.entries(files).map(([path, t]) => ({ path, data: Buffer.from(t) })),
        { label: 'config-2', size: 64 << 20 },
      ),
    );
    images.push({ name: '64 MiB vfat config drive (kiln make-seed)', path: vfat, fstype: 'vfat' });
  }
  if (hasCommand('genisoimage')) {
    const iso = join(dir, 'config-2.iso');
    spawnSync('genisoimage', ['-quiet', '-J', '-R', '-V', 'config-2', '-o', iso, src]);
    images.push({ name: 'config drive ISO (genisoimage -J -R)', path: iso, fstype: 'iso9660' });
  } else console.log('genisoimage is not installed: ISO row skipped');

  const rows: string[][] = [];
  for (const img of images) {
    const finder = new ImageFilesFinder([img.path]);
    const ms = await medianMsAsync(50, async () => {
      const [found] = await finder.find({ labels: ['config-2', 'CONFIG-2'], mustContain: [META] });
      const data = await found?.tree.readFile(META);
      if (!data || data.length === 0) throw new Error(`kiln did not find ${META} in ${img.path}`);
    });
    rows.push([img.name, 'kiln, in-process (find + read)', ms.toFixed(2), ms < 20 ? 'yes' : 'NO']);
  }

  // The comparison: a private mount namespace, so the host's mount table never sees the loop mount.
  const mnt = join(dir, 'mnt');
  mkdirSync(mnt);
  const probeNs = spawnSync('unshare', ['--mount', '--propagation', 'private', 'true']);
  if (probeNs.status !== 0) {
    console.log(
      `mount comparison skipped: unshare --mount failed (${(probeNs.stderr ?? '').toString().trim() || `exit ${probeNs.status}`}); needs root or user namespaces`,
    );
  } else {
    const baseline = medianMs(10, () => void spawnSync('unshare', ['--mount', '--propagation', 'private', 'true']));
    rows.push(['(baseline)', 'unshare --mount true', baseline.toFixed(2), '']);
    for (const img of images) {
      const script = `mount -o loop,ro -t ${img.fstype} '${img.path}' '${mnt}' && cat '${mnt}/${META}' > /dev/null; rc=$?; umount '${mnt}'; exit $rc`;
      const first = spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script], {
        encoding: 'utf8',
      });
      if (first.status !== 0) {
        rows.push([img.name, 'mount -o loop + read + umount', 'skipped', first.stderr.trim().split('\n')[0] ?? '']);
        continue;
      }
      const ms = medianMs(
        10,
        () => void spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script]),
      );
      rows.push([img.name, 'unshare --mount + mount -o loop + read + umount', ms.toFixed(2), '']);
    }
  }
  printTable(['image', 'method', 'median ms', 'under 20 ms'], rows);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

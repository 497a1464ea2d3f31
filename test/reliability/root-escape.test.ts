// `--root` is a boundary, end to end: the built binary boots a sandbox whose image is hostile (links out of the root,
// absolute and relative, `..` paths, a hard link to a file outside, a FIFO, a device node, a home that is a link out)
// in private mount, UTS, IPC, PID and network namespaces where the host's root is read-only and only the sandbox and
// the canary folder outside it are writable, so a write that escaped would land on the canaries and nowhere else.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { copyRootfs } from '../helpers/debian-rootfs';
import { builtBinary } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

const binary = builtBinary('kiln-linux-x64');

/** Every entry under DIR with its type, mode, size, mtime and content: what must not change. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string, rel: string) => {
    for (const name of readdirSync(path).sort()) {
      const full = join(path, name);
      const st = lstatSync(full);
      const what = st.isFile()
        ? readFileSync(full, 'utf8')
        : st.isSymbolicLink()
          ? 'link'
          : st.isDirectory()
            ? 'dir'
            : 'other';
      out[`${rel}${name}`] = `${st.mode.toString(8)} ${st.uid}:${st.gid} ${st.size} ${st.mtimeMs} ${what}`;
      if (st.isDirectory()) walk(full, `${rel}${name}/`);
    }
  };
  walk(dir, '');
  return out;
}

test('a hostile image under --root: every write stays inside the root, refusals name their entry, the boot goes on', {
  timeout: 600_000,
}, async (t) => {
  if (!need(t, isRoot(), 'needs root (namespaces, chroot, a copy of the Debian rootfs)')) return;
  if (!need(t, binary !== undefined, 'dist/kiln-linux-x64 is not built (npm run build)')) return;
  if (
    !need(
      t,
      hasCommand('unshare') && hasCommand('mknod') && hasCommand('mkfifo'),
      'unshare, mknod and mkfifo are needed',
    )
  )
    return;
  const work = tempDir(t);
  const root = join(work, 'root');
  const outside = join(work, 'outside');
  mkdirSync(root);
  mkdirSync(join(outside, 'dir'), { recursive: true });
  copyRootfs(root, { sameFileSystem: true });

  // The canaries outside the root, each the target of one way out.
  writeFileSync(join(outside, 'canary'), 'canary\n', { mode: 0o600 });
  writeFileSync(join(outside, 'hosts'), '127.0.0.1 canary\n');
  writeFileSync(join(outside, 'dir/keep'), 'keep\n');
  symlinkSync(join(outside, 'dir'), join(root, 'etc/kiln-abs-out'));
  symlinkSync(`${'../'.repeat(12)}${outside.slice(1)}/dir`, join(root, 'var/kiln-rel-out'));
  linkSync(join(outside, 'canary'), join(root, 'etc/kiln-hardlink'));
  assert.equal(spawnSync('mkfifo', [join(root, 'etc/kiln-fifo')]).status, 0);
  assert.equal(spawnSync('mknod', [join(root, 'etc/kiln-null'), 'c', '1', '3']).status, 0);
  symlinkSync(join(outside, 'hosts'), join(root, 'etc/hosts'), 'file');
  mkdirSync(join(root, 'home'), { recursive: true });
  symlinkSync(join(outside, 'dir'), join(root, 'home/escapee'));
  const before = snapshot(outside);

  const seed = join(root, 'var/lib/cloud/seed/nocloud');
  mkdirSync(seed, { recursive: true });
  writeFileSync(join(seed, 'meta-data'), 'instance-id: iid-root-escape\nlocal-hostname: escape-test\n');
  writeFileSync(
    join(seed, 'user-data'),
    [
      '#cloud-config',
      'manage_etc_hosts: true',
      'locale: C.UTF-8',
      'users:',
      '  - name: escapee',
      '    homedir: /home/escapee',
      '    ssh_authorized_keys: [ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMVXvEBB4r5b0ROYKsr8cXPgfAB3klcLoF6CRdHhnhQ2 escapee]',
      'write_files:',
      '  - {path: /etc/kiln-abs-out/planted-abs, content: abs}',
      '  - {path: /var/kiln-rel-out/planted-rel, content: rel}',
      `  - {path: "/../../../../..${outside}/planted-dotdot", content: dotdot}`,
      '  - {path: /etc/kiln-hardlink, content: "appended\\n", append: true}',
      '  - {path: /etc/kiln-fifo, content: "never\\n", append: true}',
      '  - {path: /etc/kiln-null, content: "never\\n", append: true, defer: true}',
      'runcmd:',
      '  - [sh, -c, "echo ran > /var/lib/kiln-runcmd-ran"]',
      '',
    ].join('\n'),
  );

  // Host root read-only in a private mount namespace; the sandbox and the canary folder are mounts of their own,
  // writable, so an escape would show on the canaries instead of failing unseen.
  const script = [
    'set -e',
    'mount --make-rprivate /',
    'mount --bind "$ROOT" "$ROOT"',
    'mount --bind "$OUTSIDE" "$OUTSIDE"',
    'mount -o remount,bind,ro /',
    'exec "$KILN" --root "$ROOT" init --all-stages',
  ].join('\n');
  const r = spawnSync(
    'unshare',
    ['--mount', '--uts', '--ipc', '--net', '--pid', '--fork', '--kill-child', 'sh', '-c', script],
    {
      encoding: 'utf8',
      env: { ...process.env, ROOT: root, OUTSIDE: outside, KILN: binary as string },
      timeout: 480_000,
    },
  );
  const out = `${r.stdout}\n${r.stderr}`;
  assert.notEqual(r.status, null, `the boot did not end: ${out.slice(-3000)}`);

  assert.deepEqual(snapshot(outside), before, `nothing outside the root changed; kiln said:\n${out.slice(-3000)}`);
  // Inside the root, where a chroot would have put each write.
  assert.equal(readFileSync(join(root, outside, 'dir/planted-abs'), 'utf8'), 'abs');
  assert.equal(readFileSync(join(root, outside, 'dir/planted-rel'), 'utf8'), 'rel');
  assert.equal(readFileSync(join(root, outside, 'planted-dotdot'), 'utf8'), 'dotdot');
  assert.equal(readFileSync(join(root, 'etc/kiln-hardlink'), 'utf8'), 'canary\nappended\n');
  assert.equal(statSync(join(root, 'etc/kiln-hardlink')).nlink, 1);
  // The two refusals name their entry, and the boot went on to the final stage.
  assert.match(out, /write_files\[4\] \(\/etc\/kiln-fifo\): cannot append to \/etc\/kiln-fifo: it is a FIFO/);
  assert.match(out, /write_files\[\d\] \(\/etc\/kiln-null\): cannot append to \/etc\/kiln-null: it is a device node/);
  assert.equal(readFileSync(join(root, 'var/lib/kiln-runcmd-ran'), 'utf8'), 'ran\n');
  assert.ok(
    lstatSync(join(root, 'etc/kiln-fifo')).isFIFO() && lstatSync(join(root, 'etc/kiln-null')).isCharacterDevice(),
    'refused targets are left as they were',
  );
  const result = JSON.parse(readFileSync(join(root, 'var/lib/cloud/data/result.json'), 'utf8')) as {
    v1: { errors: string[] };
  };
  assert.ok(
    result.v1.errors.some((e) => e.includes('kiln-fifo')),
    `result.json names the FIFO entry: ${JSON.stringify(result.v1.errors)}`,
  );
  assert.doesNotMatch(out, /internal error|^\s+at .+:\d+:\d+\)?$/m, 'no JavaScript stack reaches the user');
});

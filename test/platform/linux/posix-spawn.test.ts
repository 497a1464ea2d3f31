import assert from 'node:assert/strict';
import { chmodSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  execProcess,
  startWithNode,
  type ExecOutcome,
  type ExecRequest,
  type ProcessStarter,
} from '../../../src/util/exec';
import { dlopenKoffi } from '../../../src/util/koffi-addon';
import { addonFolders, loadKoffiFromBytes } from '../../../src/platform/linux/koffi-loader';
import { bindLibcSpawn, findExecutable, posixSpawnStarter } from '../../../src/platform/linux/posix-spawn';
import { need } from '../../helpers/requirements';
import { tempDir } from '../../helpers/temp';

// test/run.mjs names the addon npm installed; the built binaries carry their own.
const addonPath = process.env.KILN_KOFFI_ADDON;
const libc = addonPath ? bindLibcSpawn(dlopenKoffi(addonPath)) : undefined;
const posixStarter: ProcessStarter = posixSpawnStarter(
  () => {
    if (!addonPath) throw new Error('KILN_KOFFI_ADDON is not set (test/run.mjs sets it)');
    return dlopenKoffi(addonPath);
  },
  () => assert.fail('the posix_spawn starter fell back to Node'),
  (why) => assert.fail(why),
);

interface Case {
  name: string;
  request: (dir: string) => ExecRequest;
  expect: (out: ExecOutcome, dir: string) => void;
}

/** Every case runs through Node's spawn and through posix_spawn: the two must behave alike. */
const cases: Case[] = [
  {
    name: 'stdout and stderr are kept apart, with the exit code',
    request: () => ({ argv: ['sh', '-c', 'echo out; echo err >&2; exit 3'] }),
    expect: (o) =>
      assert.deepEqual(
        [o.code, o.signal, o.stdout, o.stderr, o.timedOut, o.spawnError],
        [3, null, 'out\n', 'err\n', false, undefined],
      ),
  },
  {
    name: 'without input stdin is the null device',
    request: () => ({ argv: ['readlink', '/proc/self/fd/0'] }),
    expect: (o) => assert.equal(o.stdout, '/dev/null\n'),
  },
  {
    name: 'input reaches stdin while a megabyte of output comes back (no deadlock on full pipes)',
    request: () => ({ argv: ['cat'], input: 'x'.repeat(1 << 20) }),
    expect: (o) => assert.equal(o.stdout.length, 1 << 20),
  },
  {
    name: 'a program that never reads its input still ends cleanly',
    request: () => ({ argv: ['true'], input: 'y'.repeat(1 << 20) }),
    expect: (o) => assert.equal(o.code, 0),
  },
  {
    name: "the environment given is added to kiln's, and PATH from it finds the program",
    request: (dir) => {
      writeFileSync(join(dir, 'kiln-test-prog'), '#!/bin/sh\necho "$KILN_TEST_VALUE $0"\n');
      chmodSync(join(dir, 'kiln-test-prog'), 0o755);
      return { argv: ['kiln-test-prog'], env: { PATH: `${dir}:/usr/bin:/bin`, KILN_TEST_VALUE: 'given' } };
    },
    expect: (o, dir) => assert.equal(o.stdout, `given ${join(dir, 'kiln-test-prog')}\n`),
  },
  {
    name: 'argv[0] is the name given',
    request: () => ({ argv: ['sh', '-c', 'echo "$0"'] }),
    expect: (o) => assert.equal(o.stdout, 'sh\n'),
  },
  {
    name: 'the working directory is the one asked for',
    request: (dir) => ({ argv: ['pwd'], cwd: dir }),
    expect: (o, dir) => assert.equal(o.stdout, `${dir}\n`),
  },
  {
    name: 'a program that does not exist is a start error (ENOENT), code 127',
    request: () => ({ argv: ['kiln-no-such-program-anywhere'] }),
    expect: (o) => assert.deepEqual([o.code, o.spawnError], [127, 'kiln-no-such-program-anywhere: ENOENT']),
  },
  {
    name: 'a file without execute permission is a start error (EACCES)',
    request: (dir) => {
      writeFileSync(join(dir, 'not-executable'), 'echo no\n', { mode: 0o644 });
      return { argv: [join(dir, 'not-executable')] };
    },
    // root may execute a file with no x bit at all? No: execve needs at least one x bit, even for root.
    expect: (o, dir) => assert.deepEqual([o.code, o.spawnError], [127, `${join(dir, 'not-executable')}: EACCES`]),
  },
  {
    name: 'an executable script without a #! line runs with /bin/sh, as execvp runs it',
    request: (dir) => {
      writeFileSync(join(dir, 'no-shebang'), 'echo "ran with $# args: $1"\n', { mode: 0o755 });
      return { argv: [join(dir, 'no-shebang'), 'first'] };
    },
    expect: (o) => assert.deepEqual([o.code, o.stdout], [0, 'ran with 1 args: first\n']),
  },
  {
    name: 'a timeout kills the program (SIGKILL)',
    request: () => ({ argv: ['sleep', '10'], timeoutMs: 150 }),
    expect: (o) => assert.deepEqual([o.timedOut, o.signal, o.code], [true, 'SIGKILL', 128]),
  },
  {
    name: 'a program ended by a signal reports it',
    request: () => ({ argv: ['sh', '-c', 'kill -TERM $$'] }),
    expect: (o) => assert.deepEqual([o.signal, o.code], ['SIGTERM', 128]),
  },
  {
    name: 'the program starts with no signal blocked or ignored (Node ignores SIGPIPE; a pipeline must not)',
    request: () => ({ argv: ['grep', '-E', '^Sig(Blk|Ign):', '/proc/self/status'] }),
    expect: (o) => {
      const mask = (name: string) =>
        BigInt(`0x${new RegExp(`^${name}:\\s*([0-9a-f]+)$`, 'm').exec(o.stdout)?.[1] ?? 'ff'}`);
      assert.equal(mask('SigBlk'), 0n);
      // glibc's posix_spawn leaves its two internal signals (32 and 33, bits 31 and 32) ignored; every glibc
      // program sets its own handlers for them at start.
      assert.equal(mask('SigIgn') & ~(3n << 31n), 0n);
    },
  },
  {
    name: "no descriptor of kiln's reaches the program",
    request: () => ({ argv: ['sh', '-c', 'ls /proc/$$/fd'] }),
    // sh's own 0-2, and 10 or so where dash keeps its script; nothing else.
    expect: (o) =>
      assert.deepEqual(
        o.stdout
          .split('\n')
          .filter(Boolean)
          .filter((fd) => Number(fd) > 2 && Number(fd) < 10),
        [],
      ),
  },
  {
    name: 'a program that closes its output and goes on is waited for',
    request: () => ({ argv: ['sh', '-c', 'exec >/dev/null 2>&1; sleep 0.3; exit 4'] }),
    expect: (o) => assert.equal(o.code, 4),
  },
];

for (const [label, starter] of [
  ['Node spawn', startWithNode],
  ['posix_spawn', posixStarter],
] as const) {
  for (const c of cases) {
    test(`${label}: ${c.name}`, async (t) => {
      if (label === 'posix_spawn' && !need(t, libc !== undefined, 'KILN_KOFFI_ADDON is not set (npm test sets it)'))
        return;
      const dir = tempDir(t);
      c.expect(await execProcess(c.request(dir), starter), dir);
    });
  }
}

test('findExecutable searches PATH as execvp does: the first executable file, skipping folders and plain files', (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'a-plain-file'), '', { mode: 0o644 });
  assert.equal(findExecutable('sh', '/nonexistent:/bin'), '/bin/sh');
  assert.equal(findExecutable('./relative/x', '/bin'), './relative/x');
  assert.equal(findExecutable('a-plain-file', dir), undefined);
  assert.equal(findExecutable('bin', '/'), undefined, 'a folder is not a program');
});

test('without koffi the starter falls back to Node and says why once', async () => {
  const reasons: string[] = [];
  let fellBack = 0;
  const starter = posixSpawnStarter(
    () => {
      throw new Error('no addon here');
    },
    (start) => {
      fellBack++;
      return startWithNode(start);
    },
    (why) => reasons.push(why),
  );
  assert.equal((await execProcess({ argv: ['echo', 'one'] }, starter)).stdout, 'one\n');
  assert.equal((await execProcess({ argv: ['echo', 'two'] }, starter)).stdout, 'two\n');
  assert.deepEqual([fellBack, reasons], [2, ['no addon here']]);
});

test("koffi's addon is loaded from the first folder it can be written to, and no copy is left behind", (t) => {
  if (!need(t, Boolean(addonPath), 'KILN_KOFFI_ADDON is not set (npm test sets it)')) return;
  const dir = tempDir(t);
  const bytes = readFileSync(addonPath as string);
  const koffi = loadKoffiFromBytes(bytes, [join(dir, 'missing-folder'), dir]);
  assert.equal(typeof koffi.load, 'function');
  assert.deepEqual(readdirSync(dir), []);
  assert.throws(
    () => loadKoffiFromBytes(bytes, [join(dir, 'one'), join(dir, 'two')]),
    (err: Error) => {
      assert.match(
        err.message,
        /one or .*two: cannot mkdtemp .*\/one\/\S+: no such file or folder \[ENOENT\]; cannot mkdtemp .*\/two\/\S+: no such file or folder \[ENOENT\]/,
      );
      return true;
    },
  );
});

test("koffi's addon is tried in /run, the temporary folder, then /var/tmp: at an early boot /run may be noexec (initramfs-tools) and /tmp emptied under it (systemd-tmpfiles)", () => {
  const folders = addonFolders();
  assert.equal(folders[0], '/run');
  assert.equal(folders.at(-1), '/var/tmp');
  assert.ok(folders.includes(tmpdir()));
});

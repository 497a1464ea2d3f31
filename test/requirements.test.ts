// Every tool a test checks for with need() comes from .ci/run: a test that names a command whose Debian package
// .ci/run does not install (and that is not Essential, on every Debian machine) fails here, not first on a fresh
// machine, where a green run on a machine with that package installed by hand had hidden it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BUSYBOX } from './helpers/netns-lab';
import { REPO } from './helpers/repo';
import { hasCommand, IN_CI, need } from './helpers/requirements';

const TEST = join(REPO, 'test');

/** The test sources (not fixtures, not this file and its examples). */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return name === 'fixtures' ? [] : sources(full);
    return /\.(ts|mjs)$/.test(name) && full !== join(TEST, 'requirements.test.ts') ? [full] : [];
  });
}

/** The packages `.ci/run` installs: the words of its APT_PACKAGES array, comments left out. */
function ciPackages(script: string): Set<string> {
  const block = /^APT_PACKAGES=\(([\s\S]*?)^\)/m.exec(script)?.[1];
  if (block === undefined) throw new Error('.ci/run has no APT_PACKAGES=( … ) array');
  return new Set(
    block
      .split('\n')
      .flatMap((line) => line.replace(/#.*$/, '').trim().split(/\s+/))
      .filter(Boolean),
  );
}

/**
 * The commands and files the tests check for: hasCommand('x'), the lists they filter with hasCommand, the `tool`
 * column of a table checked with hasCommand(c.tool), and absolute paths checked with existsSync inside need().
 */
function namedRequirements(text: string): { commands: Set<string>; paths: Set<string> } {
  const commands = new Set<string>();
  const paths = new Set<string>();
  for (const m of text.matchAll(/hasCommand\('([^']+)'\)/g)) commands.add(m[1] as string);
  for (const m of text.matchAll(/\[((?:\s*'[^']+',?)+)\s*\]\.filter\(\(\w+\) => !hasCommand\(\w+\)\)/g)) {
    for (const c of (m[1] as string).matchAll(/'([^']+)'/g)) commands.add(c[1] as string);
  }
  if (/hasCommand\(\w+\.tool\)/.test(text))
    for (const m of text.matchAll(/\btool: '([^']+)'/g)) commands.add(m[1] as string);
  for (const m of text.matchAll(/need\([^;]*?existsSync\('(\/[^']+)'\)/g)) paths.add(m[1] as string);
  if (/need\([^;]*existsSync\(BUSYBOX\)/.test(text)) paths.add(BUSYBOX);
  return { commands, paths };
}

/** The Debian package that holds PATH (or its target, across the /usr merge), or undefined. */
function packageOf(path: string): string | undefined {
  const real = realpathSync(path);
  for (const candidate of new Set([path, real, real.replace(/^\/usr(?=\/)/, ''), path.replace(/^\/usr(?=\/)/, '')])) {
    const r = spawnSync('dpkg-query', ['-S', candidate], { encoding: 'utf8' });
    const pkg = r.status === 0 ? /^([^:\s,]+)(?::\S+)?: /m.exec(r.stdout)?.[1] : undefined;
    if (pkg && !r.stdout.startsWith('diversion')) return pkg;
  }
  return undefined;
}

function isEssential(pkg: string): boolean {
  return spawnSync('dpkg-query', ['-W', '-f', '${Essential}', pkg], { encoding: 'utf8' }).stdout.trim() === 'yes';
}

/**
 * Skips that are not requirements, by file and the words of the skip: a test may skip itself only through need() (which
 * fails in CI), or for one of these.
 */
const SKIPS_THAT_ARE_NOT_REQUIREMENTS: Array<{ file: string; words: string; why: string }> = [
  {
    file: 'e2e/linux-binary.test.ts',
    words: "process.arch !== 'x64'",
    why: 'the code cache exists only for a binary built on its own architecture',
  },
  {
    file: 'platform/posix-spawn-opt-out.test.ts',
    words: "process.platform !== 'linux'",
    why: 'the opt-out concerns the Linux spawn path',
  },
];

test('no test skips itself except through need() (which fails in CI) or for a reason that is not a requirement', () => {
  const found: string[] = [];
  for (const file of sources(TEST)) {
    const rel = file.slice(TEST.length + 1);
    if (rel === 'helpers/requirements.ts') continue;
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (!/\bt\.skip\(|\btest\(.*\{[^}]*\bskip:/.test(line)) return;
        if (SKIPS_THAT_ARE_NOT_REQUIREMENTS.some((s) => s.file === rel && line.includes(s.words))) return;
        found.push(`${rel}:${i + 1}: ${line.trim()}`);
      });
  }
  assert.deepEqual(
    found,
    [],
    'a skip that is not need() passes silently in CI, where a missing tool or cache must fail: use need()',
  );
});

test('the requirement scan finds hasCommand literals, filtered lists, tool tables and need()-checked paths', () => {
  const found = namedRequirements(
    [
      "if (!need(t, hasCommand('mkudffs') && existsSync('/usr/sbin/radvd'), 'why')) return;",
      "const missing = ['qemu-system-x86_64', 'cpio'].filter((c) => !hasCommand(c));",
      "const cases = [{ tool: 'xorriso' }]; if (!need(t, hasCommand(c.tool), 'x')) return;",
      "if (!need(t, isRoot() && existsSync(BUSYBOX), 'why')) return;",
    ].join('\n'),
  );
  assert.deepEqual([...found.commands].sort(), ['cpio', 'mkudffs', 'qemu-system-x86_64', 'xorriso']);
  assert.deepEqual([...found.paths].sort(), [BUSYBOX, '/usr/sbin/radvd'].sort());
  assert.deepEqual([...ciPackages('x\nAPT_PACKAGES=(\n  wine openssl # the oracle\n  # qemu\n  time\n)\n')].sort(), [
    'openssl',
    'time',
    'wine',
  ]);
});

test('every command and file a test checks for is installed by .ci/run (or Essential on Debian)', (t) => {
  if (!need(t, hasCommand('dpkg-query'), 'dpkg-query (a Debian machine) tells which package holds a command')) return;
  const installed = ciPackages(readFileSync(join(REPO, '.ci', 'run'), 'utf8'));
  const commands = new Set<string>();
  const paths = new Set<string>();
  for (const file of sources(TEST)) {
    const found = namedRequirements(readFileSync(file, 'utf8'));
    for (const c of found.commands) commands.add(c);
    for (const p of found.paths) paths.add(p);
  }
  assert.ok(
    commands.size > 20,
    `the scan found only ${commands.size} commands: has the way tests check for tools changed?`,
  );
  const problems: string[] = [];
  const absent: string[] = [];
  const check = (what: string, path: string | undefined) => {
    if (path === undefined) return absent.push(what);
    const pkg = packageOf(path);
    if (pkg === undefined) problems.push(`${what} (${path}) belongs to no Debian package: .ci/run cannot install it`);
    else if (!installed.has(pkg) && !isEssential(pkg))
      problems.push(`${what} comes from ${pkg}, which .ci/run's APT_PACKAGES does not list`);
  };
  for (const c of [...commands].sort()) {
    const r = spawnSync('sh', ['-c', `command -v ${c}`], { encoding: 'utf8' });
    check(c, r.status === 0 ? r.stdout.trim() : undefined);
  }
  for (const p of [...paths].sort()) check(p, statSync(p, { throwIfNoEntry: false }) ? p : undefined);
  // In CI every one is installed: one that is not is a package .ci/run misses. Elsewhere it is only reported.
  if (IN_CI) problems.push(...absent.map((a) => `${a} is not installed after .ci/run`));
  else if (absent.length > 0) t.diagnostic(`not installed here, not checked: ${absent.join(', ')}`);
  assert.deepEqual(problems, []);
});

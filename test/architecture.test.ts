// docs/architecture.md is the map of src/: its folder table says what may import what, and src/ must agree
// with it both ways (no import it does not allow, no allowance nothing uses, no folder it does not name).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { REPO } from './helpers/repo';

const SRC = join(REPO, 'src');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return tsFiles(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

/**
 * The unit a file belongs to, as the table names it: its top folder under src/ ('cli/') or its own name ('main.ts').
 */
function unitOf(file: string): string {
  const rel = relative(SRC, file).split('/');
  return rel.length > 1 ? `${rel[0]}/` : (rel[0] as string);
}

/** Every unit → the other units it imports from (relative imports and re-exports, type-only ones included). */
function importsByUnit(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const file of tsFiles(SRC)) {
    const from = unitOf(file);
    if (!edges.has(from)) edges.set(from, new Set());
    for (const m of readFileSync(file, 'utf8').matchAll(
      /(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g,
    )) {
      const target = resolve(dirname(file), (m[1] ?? m[2]) as string);
      const found = [`${target}.ts`, join(target, 'index.ts')].find((c) => existsSync(c));
      if (!found) continue;
      const to = unitOf(found);
      if (to !== from) edges.get(from)?.add(to);
    }
  }
  return edges;
}

/** The folder table of docs/architecture.md: unit → the units it may import. */
function mapTable(): Map<string, Set<string>> {
  const doc = readFileSync(join(REPO, 'docs', 'architecture.md'), 'utf8');
  const section = doc.slice(doc.indexOf('\n## Folders'));
  const body = section.slice(0, section.indexOf('\n## ', 4));
  const table = new Map<string, Set<string>>();
  for (const line of body.split('\n')) {
    const cells = line.split(' | ');
    if (!line.startsWith('| `') || cells.length !== 3) continue;
    const unit = /`([^`]+)`/.exec(cells[0] as string)?.[1] as string;
    const allowed = [...(cells[2] as string).matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
    table.set(unit, new Set(allowed));
  }
  return table;
}

test("docs/architecture.md's folder table names every folder and top-level file of src/", () => {
  const table = mapTable();
  assert.ok(table.size >= 10, `read ${table.size} rows from the folder table`);
  const units = new Set(readdirSync(SRC).map((n) => (statSync(join(SRC, n)).isDirectory() ? `${n}/` : n)));
  assert.deepEqual([...units].sort(), [...table.keys()].sort());
});

test("src/ imports only what docs/architecture.md's folder table allows, and the table allows nothing unused", () => {
  const table = mapTable();
  const edges = importsByUnit();
  const problems: string[] = [];
  for (const [unit, used] of edges) {
    const allowed = table.get(unit) ?? new Set<string>();
    for (const to of used) if (!allowed.has(to)) problems.push(`${unit} imports ${to}, which the map does not allow`);
    for (const to of allowed) if (!used.has(to)) problems.push(`the map lets ${unit} import ${to}, which it does not`);
  }
  assert.deepEqual(problems, []);
});

test('src/modules/ holds modules at its top (each in the registry), module.ts and registry.ts; no other code', async () => {
  const { MODULES } = await import('../src/modules/registry');
  const dir = join(SRC, 'modules');
  const stray: string[] = [];
  for (const name of readdirSync(dir)) {
    if (statSync(join(dir, name)).isDirectory() || name === 'module.ts' || name === 'registry.ts') continue;
    const text = readFileSync(join(dir, name), 'utf8');
    const exported = [...text.matchAll(/export const (\w+): Module = /g)].map((m) => m[1]);
    if (exported.length === 0) stray.push(`${name} exports no Module`);
  }
  assert.deepEqual(stray, []);
  const files = readdirSync(dir).filter((n) => n.endsWith('.ts') && n !== 'module.ts' && n !== 'registry.ts');
  assert.ok(MODULES.length >= files.length, `${MODULES.length} modules registered for ${files.length} module files`);
});

test('code outside src/platform/ never asks process.platform', () => {
  const offenders = tsFiles(SRC)
    .filter((f) => !relative(SRC, f).startsWith('platform/'))
    .filter((f) => /process\.platform/.test(readFileSync(f, 'utf8')))
    .map((f) => relative(SRC, f));
  assert.deepEqual(offenders, []);
});

/**
 * What reaches the machine without the Platform: a value import of node:fs, fs/promises, child_process, net, dgram,
 * tty or os, their on-demand loaders (util/on-demand-builtins), or process.getBuiltinModule / require.
 */
const DIRECT_EFFECT =
  /^\s*import (?!type\b)[^;]*?from ['"]node:(fs|fs\/promises|child_process|net|dgram|tty|os)['"]|\b(fsPromises|childProcess|tty|net)\(\)|process\.getBuiltinModule\(|\brequire\(/gm;

const USER_NAMED =
  "reads or writes the host file (or stdin/stdout) the user names on the command line: the user's machine, not the target";
const MOCK_SERVER =
  "`devel serve-metadata`'s mock cloud: its tree is a host folder the tester gives and its listening socket is its job; it is test tooling and changes nothing of a target";
const DEVICES =
  "devices/ reads the host's block devices and sysfs, read-only (nothing mounted): the media a source is read from are the running machine's";

/**
 * Files outside src/platform/ that reach the machine directly, and why; everything else goes through the Platform.
 * A new entry needs a reason of this kind; one that no longer reaches the machine must leave.
 */
const DIRECT_EFFECTS_ALLOWED: Record<string, string> = {
  'main.ts':
    'the process entry: checks that --root is a folder and whether stdout is a terminal, before any platform exists',
  'util/on-demand-builtins.ts': 'the lazy loader of the built-ins itself; who calls it is checked here',
  'util/exec.ts':
    'the process starter the Linux and Windows platforms run commands through (util/ sits below platform/)',
  'util/direct-output.ts': "kiln's own stdout and stderr, written to their descriptors",
  'util/log.ts':
    "the log file sink: opens the host path the platform resolved (resolvedHostPath), as cloud-init's log handler",
  'util/make-dirs.ts': "the folders of the log file and of the platform's own writes (called from both)",
  'util/koffi-addon.ts': "loads koffi's native addon shipped in the binary (the platforms' libc and Win32 calls)",
  'util/source-mapped-stack.ts': "maps a --debug stack trace through the binary's own source map",
  'util/line-channel.ts':
    "the serial port or unix socket SmartOS's and CloudSigma's host protocols are spoken over (a device the source names)",
  'net/ip.ts': "node:net's isIP/isIPv4/isIPv6: address syntax only, no socket",
  'cli/analyze.ts': USER_NAMED,
  'cli/cloud-id.ts': USER_NAMED,
  'cli/command-output.ts': USER_NAMED,
  'cli/devel-make-mime.ts': USER_NAMED,
  'cli/devel-net-convert.ts': USER_NAMED,
  'cli/devel-render.ts': USER_NAMED,
  'cli/devel-run-user-data.ts': USER_NAMED,
  'cli/devel-win32-probe.ts': USER_NAMED,
  'cli/devel-write-file.ts': USER_NAMED,
  'cli/make-seed.ts': USER_NAMED,
  'cli/query.ts': USER_NAMED,
  'cli/schema.ts': USER_NAMED,
  'cli/stage-runner-setup.ts': USER_NAMED,
  'cli/install.ts': 'reads its own executable (process.execPath) to copy it into the target',
  'cli/run-all-stages.ts':
    'asks whether stdin is a terminal (a person ran --all-stages by hand: no stage units to wait for)',
  'cli/devel-serve-metadata.ts': MOCK_SERVER,
  'devices/block-reader.ts': DEVICES,
  'devices/linux-block-devices.ts': DEVICES,
  'devices/udev-filesystem-facts.ts': `${DEVICES}; and udev's database of what its probe found on them (/run/udev/data)`,
  'devices/mounted-volume-tree.ts': `${DEVICES}; a Windows volume's drive letter is read as a folder`,
  'devices/open-image.ts': `${DEVICES}; or the image file the user names`,
  'devices/make-seed.ts': `the files the user names for \`kiln make-seed\` (${USER_NAMED})`,
  'net/ephemeral/ephemeral-network.ts':
    "whether this process shares the host's network namespace (/proc/self/ns/net), which decides if a temporary lease may be taken at all",
};

test('code outside src/platform/ reaches the machine only through the Platform, but where DIRECT_EFFECTS_ALLOWED says why', () => {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const file of tsFiles(SRC)) {
    const rel = relative(SRC, file);
    if (rel.startsWith('platform/') || rel.startsWith('metadata-server/')) continue; // metadata-server/: MOCK_SERVER
    const hits = [...readFileSync(file, 'utf8').matchAll(DIRECT_EFFECT)].map((m) => m[0].trim());
    if (hits.length === 0) continue;
    seen.add(rel);
    if (!(rel in DIRECT_EFFECTS_ALLOWED))
      problems.push(
        `${rel}: ${[...new Set(hits)].join(', ')} (go through the Platform, or give the reason in DIRECT_EFFECTS_ALLOWED)`,
      );
  }
  for (const rel of Object.keys(DIRECT_EFFECTS_ALLOWED))
    if (!seen.has(rel))
      problems.push(`${rel} no longer reaches the machine directly: take it off DIRECT_EFFECTS_ALLOWED`);
  assert.deepEqual(problems, []);
});

test('nothing outside src/platform/ and main.ts asks which platform it has (instanceof …Platform): it asks for a capability', () => {
  const offenders = tsFiles(SRC)
    .map((f) => relative(SRC, f))
    .filter((rel) => !rel.startsWith('platform/') && rel !== 'main.ts')
    .filter((rel) => /\binstanceof\s+\w*Platform\b/.test(readFileSync(join(SRC, rel), 'utf8')));
  assert.deepEqual(offenders, []);
});

test('sources/ holds no DHCP client or lease handling: the temporary network is net/ephemeral/, which sources reach through sources/ephemeral-lease.ts', () => {
  const offenders = tsFiles(join(SRC, 'sources'))
    .map((f) => relative(SRC, f))
    // A DHCP client run, or an address put on or flushed from a link (reading a lease file someone else wrote is a
    // source's own business).
    .filter((rel) => /\[\s*'(dhclient|udhcpc)'|\[\s*'ip',\s*'-4',\s*'addr'/.test(readFileSync(join(SRC, rel), 'utf8')));
  assert.deepEqual(offenders, []);
  assert.ok(
    existsSync(join(SRC, 'net', 'ephemeral', 'ephemeral-network.ts')),
    'the temporary network lives in src/net/ephemeral/',
  );
});

/** src/sources/ files that may still ask whether they run on Windows, each with its reason. */
const WINDOWS_CHECKS_ALLOWED: Record<string, string> = {};

test('src/sources/ never branches on Windows (a cloudbase-init dialect is a CloudbaseMetadataService beside its source), but where WINDOWS_CHECKS_ALLOWED says why', () => {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const file of tsFiles(join(SRC, 'sources'))) {
    const rel = relative(SRC, file);
    const hits = [...readFileSync(file, 'utf8').matchAll(/\bos\s*[!=]==?\s*['"]windows['"]|\.windows\(\)/g)].map(
      (m) => m[0],
    );
    if (hits.length === 0) continue;
    seen.add(rel);
    if (!(rel in WINDOWS_CHECKS_ALLOWED))
      problems.push(
        `${rel}: ${[...new Set(hits)].join(', ')} (register a cloudbase-init service in CLOUDBASE_SERVICES instead, or give the reason in WINDOWS_CHECKS_ALLOWED)`,
      );
  }
  for (const rel of Object.keys(WINDOWS_CHECKS_ALLOWED))
    if (!seen.has(rel)) problems.push(`${rel} no longer asks for Windows: take it off WINDOWS_CHECKS_ALLOWED`);
  assert.deepEqual(problems, []);
});

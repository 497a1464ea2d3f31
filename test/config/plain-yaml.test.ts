// The fast YAML reader against the yaml package: for every YAML text in the repository, the Debian rootfs's
// cloud.cfg files and generated documents, it either declines (NOT_PLAIN) or gives exactly the yaml package's
// value; it never accepts what the yaml package rejects; and it does read the files a boot reads.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseDocument } from 'yaml';
import { parseYamlConfig } from '../../src/config/parse-yaml-config';
import { NOT_PLAIN, readPlainYaml } from '../../src/config/plain-yaml';
import { REPO as repoRoot } from '../helpers/repo';
import { seededRandom } from '../helpers/seeded-random';

/** The yaml package's reading, as parse-yaml-config.ts asks for it; undefined when it reports an error. */
function byYamlPackage(text: string): { value: unknown } | undefined {
  const doc = parseDocument(text, { uniqueKeys: false });
  if (doc.errors.length > 0) return undefined;
  return { value: doc.toJS({ maxAliasCount: 1000 }) };
}

function agrees(text: string, where: string): boolean {
  const fast = readPlainYaml(text);
  if (fast === NOT_PLAIN) return false;
  const expected = byYamlPackage(text);
  assert.ok(expected, `${where}: the fast reader accepted what the yaml package rejects:\n${text}`);
  assert.deepStrictEqual(fast, expected.value, `${where}:\n${text}`);
  return true;
}

const YAML_NAMES = /(?:\.ya?ml|\.cfg|^user-data(?:-\d+)?|^meta-data|^vendor-data|^network-config)$/;

function yamlFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) yamlFiles(full, out);
    else if (YAML_NAMES.test(name) && statSync(full).size < 200_000) out.push(full);
  }
  return out;
}

test('every YAML file in the repository: declined, or read exactly as the yaml package reads it', () => {
  let read = 0;
  const files = [...yamlFiles(join(repoRoot, 'src')), ...yamlFiles(join(repoRoot, 'test')), ...yamlFiles(join(repoRoot, 'images'))];
  for (const file of files) if (agrees(readFileSync(file, 'utf8'), file)) read++;
  assert.ok(files.length > 50 && read > files.length / 3, `${read} of ${files.length} files read`);
});

test("kiln's embedded cloud.cfg and Debian's cloud.cfg files are read by the fast reader", (t) => {
  assert.ok(agrees(readFileSync(join(repoRoot, 'src/config/defaults/cloud.cfg'), 'utf8'), 'embedded cloud.cfg'));
  const debian = '/var/cache/kiln-test/bookworm-cloud-init/etc/cloud';
  if (!existsSync(debian)) {
    t.diagnostic('the cached Debian rootfs is not built here: its cloud.cfg files are not compared');
    return;
  }
  for (const file of ['cloud.cfg', ...readdirSync(join(debian, 'cloud.cfg.d')).filter((f) => f.endsWith('.cfg')).map((f) => `cloud.cfg.d/${f}`)]) {
    assert.ok(agrees(readFileSync(join(debian, file), 'utf8'), file), `${file} is read by the fast reader`);
  }
});

test('the constructs the reader follows, and a few it leaves to the yaml package', () => {
  const read = [
    'a: 1\nb: -2\nc: 0\nd: true\ne: False\nf: ~\ng:\nh: null\ni: text with spaces # comment\nj: http://x:80/y\n',
    'list:\n  - a\n  - b\nsame_indent:\n- x\n- y\nnested:\n  deeper:\n    - k: v\n      k2: [1, two, "3"]\n    - {a: b, c: d}\n',
    "quoted: 'it''s'\ndq: \"tab\\there \\\"q\\\"\"\n'quoted key': 1\n\"dq key\": 2\n",
    'lit: |\n  line one\n\n  line three\nkeep: |+\n  x\n\nstrip: |-\n  y\nafter: 1\n',
    'base: &b |\n  shared\nuse: [*b, *b]\nname: &n alice\nagain: *n\n',
    '---\n# a comment\nonly: document\n',
    '- a\n-\n- c\n- - nested\n',
    'seq_of_maps:\n  - name: alice\n    groups: [admins]\n  - name: bob\n',
    'empty_flow: []\nempty_map: {}\n',
  ];
  let accepted = 0;
  for (const text of read) if (agrees(text, 'sample')) accepted++;
  assert.ok(accepted >= read.length - 1, `${accepted} of ${read.length} samples read`);
  // Aliases of lists and mappings go to the yaml package, which bounds how far they expand.
  for (const text of ['a: 0644\n', 'map: &m\n  k: v\nagain: *m\n', 'l: &l [a, b]\nm: [*l, *l]\n', 'a: 1.5\n', 'a: !tag x\n', 'a: >\n  folded\n', 'a: b\n---\nc: d\n', 'a: multi\n  line\n', 'k: {a, b}\n', '<<: *x\n', 'a: "\\x41"\n']) {
    assert.equal(readPlainYaml(text), NOT_PLAIN, `declined: ${JSON.stringify(text)}`);
  }
});

test('a document whose aliases multiply ("billion laughs") is refused by the yaml package, not expanded', () => {
  const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 9; i++) {
    const prev = String.fromCharCode(96 + i);
    const name = String.fromCharCode(97 + i);
    levels.push(`${name}: &${name} [${Array(10).fill(`*${prev}`).join(', ')}]`);
  }
  const text = `${levels.join('\n')}\n`;
  assert.equal(readPlainYaml(text), NOT_PLAIN);
  assert.throws(() => parseYamlConfig(text, 'laughs.cfg'), { name: 'ConfigError', message: /^laughs\.cfg: invalid YAML: .*alias/i });
});

const SCALARS = ['a', 'yes', 'no', 'on', 'True', 'false', 'NULL', '~', '', '0', '-1', '42', '0644', '1.5', '1e3', '.inf', 'a: b', 'a:b', 'x #y', '#x', ' lead', 'trail ', "it's", 'q"d', 'back\\slash', '[x]', '{x}', '*a', '&a', '!t', '%x', '@x', '-', '- x', '-x', '?', ':x', 'multi\nline', 'ünï', 'path/to', 'k=v', '123abc', '0x1F', '0o17', '+1', 'null', 'Yes'];

function scalarText(s: string, rnd: () => number): string {
  const style = rnd();
  if (style < 0.5) return s; // plain, whether or not that is valid
  if (style < 0.75) return `'${s.replace(/'/g, "''")}'`;
  return JSON.stringify(s);
}

function emit(depth: number, indent: string, rnd: () => number, lines: string[], keyPrefix: string): void {
  const kind = depth > 3 ? 2 : Math.floor(rnd() * 3);
  const n = 1 + Math.floor(rnd() * 3);
  for (let i = 0; i < n; i++) {
    const comment = rnd() < 0.1 ? ' # note' : '';
    const head = kind === 0 ? `${indent}- ` : `${indent}${keyPrefix}${i}: `;
    const r = rnd();
    if (r < 0.5 || depth > 3) lines.push(`${head}${scalarText(SCALARS[Math.floor(rnd() * SCALARS.length)] as string, rnd)}${comment}`);
    else if (r < 0.6) lines.push(`${head}[${[0, 1].map(() => scalarText(SCALARS[Math.floor(rnd() * SCALARS.length)] as string, rnd)).join(', ')}]`);
    else if (r < 0.7) lines.push(`${head}|`, `${indent}  text ${i}`, '', `${indent}  more`);
    else {
      lines.push(head.trimEnd());
      emit(depth + 1, `${indent}  `, rnd, lines, `${keyPrefix}${i}_`);
    }
    if (rnd() < 0.1) lines.push('');
    if (rnd() < 0.05) lines.push(`${indent}# a comment line`);
  }
}

test('generated documents: declined, or read exactly as the yaml package reads them', () => {
  let read = 0;
  const total = 3000;
  for (let seed = 1; seed <= total; seed++) {
    const rnd = seededRandom(seed);
    const lines: string[] = [];
    emit(0, '', rnd, lines, 'k');
    if (agrees(`${lines.join('\n')}\n`, `seed ${seed}`)) read++;
  }
  assert.ok(read > total / 10, `${read} of ${total} generated documents read`);
});

test('mutated config files (characters inserted, removed, replaced): declined, or read exactly as the yaml package reads them', () => {
  const bases = [readFileSync(join(repoRoot, 'src/config/defaults/cloud.cfg'), 'utf8'), 'a: 1\nb:\n  - x\n  - y: z\n    w: [1, "2", \'3\']\nc: |\n  lit\n   more\n\nd: &x {k: v}\ne: *x\n'];
  const debian = '/var/cache/kiln-test/bookworm-cloud-init/etc/cloud';
  if (existsSync(debian)) bases.push(readFileSync(join(debian, 'cloud.cfg'), 'utf8'), readFileSync(join(debian, 'cloud.cfg.d/05_logging.cfg'), 'utf8'));
  const pieces = [' ', '  ', ':', ': ', '-', '- ', '#', ' #', '"', "'", '\t', '\n', '[', ']', '{', '}', ',', '&a ', '*a', '|', '|-', '>', '!', '?', '~', '0', '1.5', 'yes', '%', '@', '\\', 'x', '---', '...'];
  const rnd = seededRandom(20261125);
  let read = 0;
  const total = 8000;
  for (let i = 0; i < total; i++) {
    let t = bases[Math.floor(rnd() * bases.length)] as string;
    for (let m = 1 + Math.floor(rnd() * 3); m > 0; m--) {
      const at = Math.floor(rnd() * t.length);
      const piece = pieces[Math.floor(rnd() * pieces.length)] as string;
      const r = rnd();
      if (r < 0.4) t = t.slice(0, at) + piece + t.slice(at);
      else if (r < 0.7) t = t.slice(0, at) + t.slice(at + 1 + Math.floor(rnd() * 3));
      else t = t.slice(0, at) + piece + t.slice(at + 1);
    }
    if (agrees(t, `mutation ${i}`)) read++;
  }
  assert.ok(read > total / 4, `${read} of ${total} mutated documents read`);
});

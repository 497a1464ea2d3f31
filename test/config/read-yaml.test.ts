// The YAML reader against PyYAML's SafeLoader (YAML 1.1 as cloud-init reads it): a table of plain scalars and
// their values, checked once against PyYAML itself in the Debian rootfs; refusals; errors with file and line.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { readYaml, YamlError } from '../../src/config/read-yaml';
import { ensureDebianRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';

/** `a: TEXT` read by PyYAML 6.0 (bookworm's python3-yaml, cloud-init's loader): the value of `a`. */
const PYYAML_SCALARS: Array<[string, unknown]> = [
  // YAML 1.1 integers: leading 0 is octal, 0o is not a prefix, `_` is ignored, base 60 for a:b:c.
  ['0644', 420],
  ['0755', 493],
  ['0', 0],
  ['-0', 0],
  ['+12', 12],
  ['1_000', 1000],
  ['1__2', 12],
  ['0_', 0],
  ['0b1_0', 2],
  ['0x1F', 31],
  ['-0x1_F', -31],
  ['190:20:30', 685230],
  ['1:2:3', 3723],
  ['-1:30', -90],
  ['0o17', '0o17'],
  ['08', '08'],
  ['09', '09'],
  ['0x', '0x'],
  ['0:30', '0:30'],
  ['12:70', '12:70'],
  ['6_0:0_0', '6_0:0_0'],
  ['123abc', '123abc'],
  // Floats need a dot (or .inf/.nan), and an exponent needs its sign.
  ['1.5', 1.5],
  ['1.', 1],
  ['.5', 0.5],
  ['1_0.2_5', 10.25],
  ['1.0e+3', 1000],
  ['1:30.5', 90.5],
  ['-.inf', -Infinity],
  ['.Inf', Infinity],
  ['.NaN', NaN],
  ['1e3', '1e3'],
  ['1.0e3', '1.0e3'],
  ['.', '.'],
  ['._1', '._1'],
  ['1.2.3', '1.2.3'],
  // Booleans: the six words in three casings, not y/n.
  ['yes', true],
  ['Yes', true],
  ['YES', true],
  ['on', true],
  ['On', true],
  ['true', true],
  ['TRUE', true],
  ['no', false],
  ['NO', false],
  ['off', false],
  ['Off', false],
  ['False', false],
  ['y', 'y'],
  ['n', 'n'],
  ['yEs', 'yEs'],
  ['oN', 'oN'],
  // Null.
  ['~', null],
  ['null', null],
  ['Null', null],
  ['NULL', null],
  ['', null],
  ['nULL', 'nULL'],
  // Timestamps (PyYAML's date and datetime), and what only looks like one.
  ['2024-01-02', new Date(Date.UTC(2024, 0, 2))],
  ['2001-12-14t21:59:43.10-05:00', new Date(Date.UTC(2001, 11, 15, 2, 59, 43, 100))],
  ['2001-12-14 21:59:43.10', new Date(Date.UTC(2001, 11, 14, 21, 59, 43, 100))],
  ['2001-1-2 3:04:05Z', new Date(Date.UTC(2001, 0, 2, 3, 4, 5))],
  ['2024-1-2', '2024-1-2'],
  // Quoted and explicitly tagged scalars.
  ['"0644"', '0644'],
  ["'yes'", 'yes'],
  ['!!str 0644', '0644'],
  ['!!int "0x1F"', 31],
  ['!!int "0644"', 420],
  ['!!float 1', 1],
  ['!!bool YeS', true],
  ['!!null x', null],
  ['!!python/unicode 0644', '0644'],
  ['!!binary aGk=', new Uint8Array([104, 105])],
  // Plain text.
  ['hello world', 'hello world'],
  ['http://x:80/y', 'http://x:80/y'],
  ['a:b', 'a:b'],
];

function readScalar(scalar: string): unknown {
  return (readYaml(`a: ${scalar}\n`, 'table.yaml') as { a: unknown }).a;
}

test('plain and tagged scalars get the values PyYAML gives them', () => {
  for (const [scalar, want] of PYYAML_SCALARS) {
    const got = readScalar(scalar);
    if (want instanceof Uint8Array) assert.deepEqual(Uint8Array.from(got as Uint8Array), want, scalar);
    else assert.deepStrictEqual(got, want, `a: ${scalar}`);
  }
});

test('what PyYAML refuses is refused, with the file, line and column', () => {
  const refused: Array<[string, RegExp]> = [
    [
      'a: 1\nb: =\n',
      /^t\.yaml:2:4: invalid YAML: could not determine a constructor for the tag 'tag:yaml\.org,2002:value'$/,
    ],
    ['a: 1\nb: !foo x\n', /^t\.yaml:2:4: invalid YAML: .*!foo/],
    ['a: !!int abc\n', /^t\.yaml:1:4: invalid YAML: invalid literal for int\(\) with base 10: 'abc'$/],
    ['a: !!bool maybe\n', /^t\.yaml:1:4: invalid YAML: /],
    ['a: !!timestamp 2024-02-30\n', /^t\.yaml:1:4: invalid YAML: /],
    ['a: 1\n? [1]\n: x\n', /^t\.yaml:2:3: invalid YAML: found unhashable key/],
    ['a: 1\nb: [1, 2\n', /^t\.yaml:\d+:\d+: invalid YAML: /],
    ['a: b\n---\nc: d\n', /^t\.yaml:\d+:\d+: invalid YAML: /],
  ];
  for (const [text, message] of refused) {
    assert.throws(
      () => readYaml(text, 't.yaml'),
      (err: unknown) => {
        assert.ok(err instanceof YamlError, `${JSON.stringify(text)}: ${String(err)}`);
        assert.equal(err.name, 'ConfigError');
        assert.match(err.message, message, JSON.stringify(text));
        return true;
      },
    );
  }
});

test('merge keys, repeated keys (the last wins) and anchors, as PyYAML reads them', () => {
  const doc = readYaml('base: &b {x: 1, y: 2}\nuse:\n  <<: *b\n  y: 3\nk: 1\nk: 2\nlist: [&s yes, *s]\n', 'm.yaml');
  assert.deepStrictEqual(doc, { base: { x: 1, y: 2 }, use: { x: 1, y: 3 }, k: 2, list: [true, true] });
});

test('LINEOFFSET moves reported lines (a header line cut off), and `detail` leaves the file name out', () => {
  assert.throws(
    () => readYaml('a: [\n', 'part', { lineOffset: 1 }),
    (err: unknown) => {
      assert.ok(err instanceof YamlError);
      assert.equal(err.line, 3);
      assert.match(err.detail, /^invalid YAML at line 3, column \d+: /);
      return true;
    },
  );
});

test('a document whose aliases multiply ("billion laughs") is refused, not expanded', () => {
  const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 9; i++) {
    const prev = String.fromCharCode(96 + i);
    const name = String.fromCharCode(97 + i);
    levels.push(`${name}: &${name} [${Array(10).fill(`*${prev}`).join(', ')}]`);
  }
  assert.throws(() => readYaml(`${levels.join('\n')}\n`, 'laughs.cfg'), {
    name: 'ConfigError',
    message: /^laughs\.cfg: invalid YAML: .*alias/i,
  });
});

/** JSON for the table's values as PyYAML's are printed below: dates as ISO text, floats that are not finite by name. */
function comparable(value: unknown): unknown {
  if (value instanceof Date) return `date:${value.toISOString()}`;
  if (value instanceof Uint8Array) return `bytes:${Buffer.from(value).toString('hex')}`;
  if (typeof value === 'number' && !Number.isFinite(value)) return `float:${value}`;
  return value;
}

const PYTHON_ORACLE = `
import datetime, json, math, sys, yaml
out = []
for text in json.load(sys.stdin):
    try:
        v = yaml.safe_load("a: " + text + "\\n")["a"]
    except Exception as e:
        out.append("error"); continue
    if isinstance(v, datetime.datetime):
        if v.tzinfo is None: v = v.replace(tzinfo=datetime.timezone.utc)
        s = v.astimezone(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        v = "date:" + s
    elif isinstance(v, datetime.date):
        v = "date:" + v.isoformat() + "T00:00:00.000Z"
    elif isinstance(v, bytes):
        v = "bytes:" + v.hex()
    elif isinstance(v, float) and math.isnan(v):
        v = "float:NaN"
    elif isinstance(v, float) and math.isinf(v):
        v = "float:" + ("-Infinity" if v < 0 else "Infinity")
    elif isinstance(v, float) and v.is_integer():
        v = int(v)
    out.append(v)
print(json.dumps(out))
`;

test("the table is PyYAML's own reading (bookworm's python3-yaml, in the cached Debian rootfs)", (t) => {
  if (!need(t, isRoot() && hasCommand('chroot'), 'running PyYAML in the Debian rootfs needs root and chroot')) return;
  const root = ensureDebianRootfs();
  // -B: nothing is written into the shared rootfs; !!python/unicode is cloud-init's addition, not SafeLoader's.
  const texts = PYYAML_SCALARS.filter(([s]) => !s.startsWith('!!python/unicode')).map(([s]) => s);
  const r = spawnSync('chroot', [root, 'python3', '-B', '-c', PYTHON_ORACLE], {
    input: JSON.stringify(texts),
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const pyyaml = JSON.parse(r.stdout) as unknown[];
  for (const [i, text] of texts.entries())
    assert.deepStrictEqual(comparable(readScalar(text)), pyyaml[i], `a: ${text}`);
});

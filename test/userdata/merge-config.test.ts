// cloud-config merging: fixed cases, and parity with cloud-init 22.4's own mergers from the Debian rootfs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import {
  ConfigMerger,
  extractConfigMergers,
  mergeManyConfigs,
  parseMergeString,
} from '../../src/userdata/merge-config';
import { ensureDebianRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';

const A = { list: [1, 2, 3], str: 'ab', dict: { x: 1, inner: { p: 1 }, l: ['a'] }, num: 1, gone: 'old', none: null };
const B = { list: [9], str: 'cd', dict: { y: 2, inner: { q: 2 }, l: ['b'] }, num: 2, gone: null, extra: true, none: 5 };

const STRINGS = [
  'dict(replace)+list()+str()',
  'list()+dict()+str()',
  'dict(no_replace,recurse_list)+list(append)+str()',
  'dict(recurse_array,recurse_str)+list(prepend)+str(append)',
  'dict(replace)+list(append)',
  'dict(allow_delete,no_replace)+list(no_replace)',
  'dict(recurse_list)+list(replace,recurse_dict)+str()',
  'list(append)',
  'dict(replace)',
  'str(append)+dict(recurse_str)',
];

test('fixed merges', () => {
  assert.deepEqual(ConfigMerger.from('dict(replace)+list()+str()').merge(A, B), { ...A, ...B });
  assert.deepEqual(
    ConfigMerger.from('dict(no_replace,recurse_list)+list(append)+str()').merge({ r: ['a'] }, { r: ['b'], n: 1 }),
    { r: ['a', 'b'], n: 1 },
  );
  assert.deepEqual(
    ConfigMerger.from('list(replace)').merge([1, 2, 3], [9]),
    [9, 2, 3],
    'list replace works index by index',
  );
  assert.deepEqual(ConfigMerger.from('dict(allow_delete,replace)').merge({ a: 1, b: 2 }, { a: null }), { b: 2 });
  assert.deepEqual(
    mergeManyConfigs([
      { a: 1, d: { x: 1 } },
      { a: 2, b: 2, d: { y: 2 } },
    ]),
    { a: 1, b: 2, d: { x: 1, y: 2 } },
    'the first config wins, dicts recurse',
  );
});

test('merge_how in a document: string and list forms, and bad values', () => {
  assert.deepEqual(extractConfigMergers({ merge_how: 'dict(replace)+list(append)' }), [
    { name: 'dict', options: ['replace'] },
    { name: 'list', options: ['append'] },
  ]);
  assert.deepEqual(extractConfigMergers({ merge_type: [{ name: 'list', settings: ['append'] }, ['str', 'append']] }), [
    { name: 'list', options: ['append'] },
    { name: 'str', options: ['append'] },
  ]);
  assert.throws(() => parseMergeString('dict(replace'), /not in the form name\(option,…\)/);
  assert.throws(() => parseMergeString('tuple()'), /unknown merger 'tuple'/);
});

test('parity with cloud-init 22.4 mergers (Debian rootfs)', (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs root, chroot and debootstrap for the Debian rootfs',
    )
  )
    return;
  const root = ensureDebianRootfs();
  const script = [
    'import sys, json, importlib.util',
    'from cloudinit import mergers',
    'req = json.load(sys.stdin)',
    'out = []',
    'for s in req["strings"]:',
    '    m = mergers.construct(mergers.string_extract_mergers(s))',
    '    out.append(m.merge(json.loads(json.dumps(req["a"])), json.loads(json.dumps(req["b"]))))',
    'json.dump(out, sys.stdout)',
  ].join('\n');
  const r = spawnSync('unshare', ['--mount', '--pid', '--fork', 'chroot', root, 'python3', '-B', '-c', script], {
    input: JSON.stringify({ strings: STRINGS, a: A, b: B }),
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const expected = JSON.parse(r.stdout) as unknown[];
  for (const [i, s] of STRINGS.entries()) assert.deepEqual(ConfigMerger.from(s).merge(A, B), expected[i], s);
});

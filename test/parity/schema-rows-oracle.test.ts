// The schema table's expectations (test/config/cloud-config-schema-rows.ts) checked against the oracle itself: Debian
// 13's cloud-init 25.1.4 judges every row, in a chroot of the trixie rootfs, with validate_cloudconfig_schema (strict),
// and must give the verdict and paths the table records. kiln is held to the table by
// cloud-config-schema-table.test.ts, so together kiln judges each row as 25.1 does.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { copyRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { CLOUD_CONFIG_SCHEMA_ROWS as ROWS } from '../config/cloud-config-schema-rows';

/** One JSON line per row: the verdict and the sorted, distinct paths, as the table has them. */
const PYTHON = `
import json, sys, yaml
from cloudinit.log import loggers
from cloudinit.config.schema import SchemaValidationError, validate_cloudconfig_schema
loggers.define_extra_loggers()
for i in range(int(sys.argv[1])):
    config = yaml.safe_load(open("/tmp/schema-rows/%d.yaml" % i))
    try:
        validate_cloudconfig_schema(config=config, strict=True)
        verdict, paths = "valid", []
    except SchemaValidationError as e:
        problems = e.schema_errors or e.schema_deprecations
        verdict = "invalid" if e.schema_errors else "deprecated"
        paths = sorted(set(p.path for p in problems))
    print(json.dumps([verdict, paths]))
`;

test('every row of the schema table is judged so by cloud-init 25.1.4 itself (the verdict and the paths)', (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs root, unshare, chroot and debootstrap for the trixie rootfs',
    )
  )
    return;
  const root = copyRootfs(tempDir(t, 'kiln-schema-rows-'), { suite: 'trixie' });
  mkdirSync(join(root, 'tmp/schema-rows'), { recursive: true });
  for (const [i, [, yaml]] of ROWS.entries())
    writeFileSync(join(root, 'tmp/schema-rows', `${i}.yaml`), `#cloud-config\n${yaml}\n`);
  writeFileSync(join(root, 'tmp/judge.py'), PYTHON);
  const r = spawnSync(
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
      'python3',
      '/tmp/judge.py',
      String(ROWS.length),
    ],
    { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
  );
  assert.equal(r.status, 0, r.stderr.slice(-3000));
  const verdicts = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as [string, string[]]);
  assert.equal(verdicts.length, ROWS.length);
  const wrong = ROWS.flatMap(([module, yaml, verdict, paths], i) => {
    const [theirs, theirPaths] = verdicts[i] as [string, string[]];
    return theirs === verdict && JSON.stringify(theirPaths) === JSON.stringify(paths)
      ? []
      : [
          `${module}: ${JSON.stringify(yaml)}: table says ${verdict} ${JSON.stringify(paths)}, 25.1.4 says ${theirs} ${JSON.stringify(theirPaths)}`,
        ];
  });
  assert.deepEqual(wrong, []);
});

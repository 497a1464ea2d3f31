// The init stage's schema check of the user's cloud-config (src/runner/validate-user-cloud-config.ts) against
// cloud-init
// 25.1's own: Debian 13's validate_cloudconfig_schema, called as its main_init calls it, in a chroot of the trixie
// rootfs, on the same cloud-config.txt texts; the lines logged at INFO and above must be the same, level and words.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { validateUserCloudConfig } from '../../src/runner/validate-user-cloud-config';
import { Logger, MemorySink } from '../../src/util/log';
import { copyRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

/** cloud-config.txt as the user-data handler writes it: each case a rule kind of the schema, or none. */
const CASES: Record<string, string> = {
  valid: 'hostname: web1\nusers: [default]\nruncmd: [echo hi]\n',
  'top-level typo': 'hostnam: web1\npakages: [curl]\n',
  'wrong type': 'manage_resolv_conf: asdf\nruncmd: []\n',
  'deprecated key': 'users:\n- default\n- name: bob\n  lock-passwd: true\n',
  'deprecated and invalid': 'apt:\n  preserve_sources_list: 1\nchpasswd:\n  list: |\n    bob:secret\nssh_pwauth: yes\n',
  'nested enum and extra key': 'ntp:\n  invalidkey: 1\nrandom_seed:\n  encoding: bad\n',
};

const PYTHON = `
import logging, sys, yaml
from cloudinit.log import loggers
from cloudinit.config.schema import validate_cloudconfig_schema
loggers.define_extra_loggers()
logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s", stream=sys.stdout)
for name in sys.argv[1:]:
    print("== " + name, flush=True)
    validate_cloudconfig_schema(config=yaml.safe_load(open("/tmp/schema-cases/" + name)), strict=False, log_details=False, log_deprecations=True)
    sys.stdout.flush()
`;

test("the init stage's schema check logs what cloud-init 25.1's does, level and words, on the same cloud-config", async (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs root, unshare, chroot and debootstrap for the trixie rootfs',
    )
  )
    return;
  const root = copyRootfs(tempDir(t, 'kiln-schema-boot-'), { suite: 'trixie' });
  const names = Object.keys(CASES).map((_, i) => `case-${i}`);
  spawnSync('mkdir', ['-p', join(root, 'tmp/schema-cases')]);
  for (const [i, body] of Object.values(CASES).entries())
    writeFileSync(
      join(root, 'tmp/schema-cases', names[i] as string),
      `#cloud-config\n\n# from 1 files\n# part-001\n\n---\n${body}...\n`,
    );
  writeFileSync(join(root, 'tmp/validate.py'), PYTHON);
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
      '/tmp/validate.py',
      ...names,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  const theirs = new Map(
    r.stdout
      .split(/^== /m)
      .filter(Boolean)
      .map((block) => {
        const [name, ...lines] = block.trimEnd().split('\n');
        return [name as string, lines.filter((l) => !l.startsWith('DEBUG'))];
      }),
  );
  const all = [...theirs.values()].flat();
  assert.ok(
    all.some((l) => l.startsWith('DEPRECATED ')) &&
      all.some((l) => l.startsWith('WARNING ')) &&
      (theirs.get('case-0') ?? ['?']).length === 0,
    `25.1 judged the cases as expected:\n${r.stdout}`,
  );
  for (const [i, [label, body]] of Object.entries(CASES).entries()) {
    const sink = new MemorySink('INFO');
    const logger = new Logger();
    logger.addSink(sink);
    await validateUserCloudConfig(
      readFileSync(join(root, 'tmp/schema-cases', names[i] as string), 'utf8'),
      logger.for('schema.py'),
    );
    // kiln's lines: `<time> - schema.py[LEVEL]: message`, cloud-init.log's format.
    const mine = sink.lines.map((l) => l.trimEnd().replace(/^.* - schema\.py\[([A-Z]+)\]: /, '$1 '));
    assert.deepEqual(mine, theirs.get(names[i] as string), `${label}:\n${body}`);
  }
});

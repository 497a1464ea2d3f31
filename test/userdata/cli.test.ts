// `devel make-mime`, `devel render` and `devel run-user-data` through main(), as a user calls them.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildFacts } from '../../src/build-info';
import type { CommandContext } from '../../src/cli/command';
import { parseInvocation } from '../../src/cli/parse-args';
import { COMMANDS } from '../../src/cli/registry';
import type { Face } from '../../src/cli/face';
import { createPlatform } from '../../src/platform/create-platform';
import type { Platform } from '../../src/platform/platform';
import { KilnError, UsageError } from '../../src/util/errors';
import { Logger } from '../../src/util/log';
import { processUserData } from '../../src/userdata/process-user-data';
import { copyRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

/** Runs one command as main() does (main.ts's entry check does not survive the ESM test bundle). */
async function run(face: Face, argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const inv = parseInvocation(argv, COMMANDS, face);
  const command = inv.command;
  assert.ok(command, `no command for ${argv.join(' ')}`);
  const logger = new Logger();
  let platform: Platform | undefined;
  const ctx: CommandContext = {
    face,
    argv0: face,
    facts: buildFacts,
    root: inv.global.root,
    dryRun: false,
    debug: false,
    logger,
    log: logger.for('test.ts'),
    io: { out: (s) => void (out += s), err: (s) => void (err += s) },
    env: process.env,
    platform: () =>
      (platform ??= createPlatform({
        root: inv.global.root,
        dryRun: false,
        log: logger.for('platform.ts'),
        facts: buildFacts,
        env: process.env,
      })),
  };
  try {
    return { code: await command.run(ctx, inv.args), out, err };
  } catch (e) {
    if (e instanceof UsageError) return { code: 2, out, err: err + e.message };
    if (e instanceof KilnError) return { code: 1, out, err: err + e.message };
    throw e;
  }
}

test('cloud-init devel make-mime builds a message that processes back into the same parts', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'cfg.yaml'), '#cloud-config\nhostname: mm\n');
  writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\necho héllo\n');
  writeFileSync(join(dir, 'boot.sh'), '#!/bin/sh\nuptime\n');
  const r = await run('cloud-init', [
    'devel',
    'make-mime',
    '-a',
    `${join(dir, 'cfg.yaml')}:cloud-config`,
    '-a',
    `${join(dir, 'run.sh')}:x-shellscript`,
    '--attach',
    `${join(dir, 'boot.sh')}:x-shellscript-per-boot`,
  ]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^Content-Type: multipart\/mixed; boundary="===============[0-9a-f]+=="\nMIME-Version: 1\.0\n/);
  const p = await processUserData({ userData: r.out });
  assert.deepEqual(p.errors, []);
  assert.deepEqual(
    p.parts.map((x) => [x.name, x.contentType]),
    [
      ['cfg.yaml', 'text/cloud-config'],
      ['run.sh', 'text/x-shellscript'],
      ['boot.sh', 'text/x-shellscript-per-boot'],
    ],
  );
  assert.deepEqual(p.cloudConfig, { hostname: 'mm' });
  assert.equal(
    Buffer.from(p.scripts[0]?.content ?? []).toString('utf8'),
    '#!/bin/sh\necho héllo\n',
    'non-ASCII content survives (base64)',
  );
  assert.equal(Buffer.from(p.scripts[1]?.content ?? []).toString('utf8'), '#!/bin/sh\nuptime\n');

  const bad = await run('cloud-init', ['devel', 'make-mime', '-a', `${join(dir, 'cfg.yaml')}:no-such-type`]);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /'text\/no-such-type' .* --force/);
  const forced = await run('cloud-init', [
    'devel',
    'make-mime',
    '-a',
    `${join(dir, 'cfg.yaml')}:no-such-type`,
    '--force',
  ]);
  assert.equal(forced.code, 0);
  const list = await run('cloud-init', ['devel', 'make-mime', '--list-types']);
  assert.match(list.out, /^cloud-boothook\ncloud-config\n/);
  assert.match(list.out, /x-shellscript-per-once/);
});

test('cloud-init devel render renders with instance data, marks undefined names as cloud-init does and names the line of an error', async (t) => {
  const dir = tempDir(t);
  writeFileSync(
    join(dir, 'ud'),
    '## template: jinja\n#cloud-config\nhostname: {{ v1.local_hostname }}\nregion: {{ ds.meta_data["avail-zone"] }}\n',
  );
  writeFileSync(
    join(dir, 'id.json'),
    JSON.stringify({ v1: { local_hostname: 'r1' }, ds: { meta_data: { 'avail-zone': 'z1' } } }),
  );
  const ok = await run('cloud-init', ['devel', 'render', join(dir, 'ud'), '-i', join(dir, 'id.json')]);
  assert.equal(ok.code, 0, ok.err);
  assert.equal(ok.out, '#cloud-config\nhostname: r1\nregion: z1\n');
  writeFileSync(join(dir, 'missing'), '## template: jinja\n#cloud-config\n\nx: {{ v1.missing }}\n');
  const missing = await run('cloud-init', ['devel', 'render', join(dir, 'missing'), '-i', join(dir, 'id.json')]);
  assert.equal(missing.code, 0, missing.err);
  assert.equal(missing.out, '#cloud-config\n\nx: CI_MISSING_JINJA_VAR/missing\n');
  assert.match(missing.err, /WARNING: Could not render jinja template variables in file '.*missing': 'missing'/);
  writeFileSync(join(dir, 'bad'), '## template: jinja\n#cloud-config\n\nx: {{ v1.missing.deeper }}\n');
  const bad = await run('cloud-init', ['devel', 'render', join(dir, 'bad'), '-i', join(dir, 'id.json')]);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /bad:4: 'v1\.missing' is undefined/);
  const notJinja = await run('cloud-init', ['devel', 'render', join(dir, 'id.json'), '-i', join(dir, 'id.json')]);
  assert.match(notJinja.err, /is not a jinja template/);
  const noData = await run('cloud-init', ['devel', 'render', join(dir, 'ud'), '--root', dir]);
  assert.match(noData.err, /missing instance data file: \/run\/cloud-init\/instance-data\.json/);
});

test('kiln devel run-user-data runs the scripts in a sandbox root and reports each exit code', async (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs root, unshare, chroot and debootstrap',
    )
  )
    return;
  const root = copyRootfs(tempDir(t, 'kiln-ud-cli-'));
  const dir = tempDir(t);
  writeFileSync(
    join(dir, 'ud'),
    'Content-Type: multipart/mixed; boundary=R\nMIME-Version: 1.0\n\n--R\nContent-Type: text/x-shellscript\nContent-Disposition: attachment; filename="a.sh"\n\n#!/bin/sh\nexit 4\n--R\nContent-Type: text/x-shellscript\nContent-Disposition: attachment; filename="b.sh"\n\n#!/bin/bash\necho "$BASH_VERSION" > /root/b\n--R--\n',
  );
  const r = await run('kiln', ['--root', root, 'devel', 'run-user-data', join(dir, 'ud'), '--instance-id', 'i-cli']);
  assert.equal(r.code, 1, 'a failed script makes the command fail');
  assert.equal(
    r.out,
    'script /var/lib/cloud/instances/i-cli/scripts/a.sh: exit 4 (script /var/lib/cloud/instances/i-cli/scripts/a.sh failed with exit code 4)\nscript /var/lib/cloud/instances/i-cli/scripts/b.sh: exit 0\n',
  );
  assert.match(readFileSync(join(root, 'root/b'), 'utf8'), /^5\./);
});

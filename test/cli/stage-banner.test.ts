// Each stage's banner is cloud-init 25.1's ("Cloud-init v. <version> running '<stage>' at <rfc2822>. Up <n> seconds."),
// naming the cloud-init release kiln reproduces, so tools that read the banner's version read what `--version` says.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { KILN_CLOUD_INIT_VERSION } from '../../src/build-info';
import { main } from '../../src/main';
import { tempDir } from '../helpers/temp';

const BANNER = (stage: string) =>
  new RegExp(
    `^Cloud-init v\\. ${KILN_CLOUD_INIT_VERSION.replace(/\./g, '\\.')} running '${stage}' at \\w{3}, \\d\\d \\w{3} \\d{4} \\d\\d:\\d\\d:\\d\\d \\+0000\\. Up \\d+\\.\\d\\d seconds\\.$`,
    'm',
  );

test("the stage banners name cloud-init's release as 25.1's do, on the console, in cloud-init-output.log and in cloud-init.log", async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc/cloud/cloud.cfg.d'), { recursive: true });
  writeFileSync(
    join(root, 'etc/cloud/cloud.cfg.d/50-test.cfg'),
    'datasource_list: [None]\ncloud_init_modules: []\ncloud_config_modules: []\ncloud_final_modules: []\n',
  );
  let out = '';
  const io = { out: (s: string) => void (out += s), err: (s: string) => void (out += s) };
  for (const [argv, stage] of [
    [['init', '--local'], 'init-local'],
    [['init'], 'init'],
    [['modules', '--mode', 'config'], 'modules:config'],
    [['modules', '--mode', 'final'], 'modules:final'],
  ] as const) {
    await main({ argv: ['--root', root, ...argv], argv0: '/usr/bin/cloud-init', env: {}, io });
    assert.match(out, BANNER(stage), out);
    assert.match(readFileSync(join(root, 'var/log/cloud-init-output.log'), 'utf8'), BANNER(stage));
    // 25.1's welcome goes to cloud-init.log too (log_util.multi_log with its logger), where log readers look for it.
    const logged = readFileSync(join(root, 'var/log/cloud-init.log'), 'utf8')
      .split('\n')
      .filter((l) => l.includes(' - log_util.py[DEBUG]: '))
      .map((l) => l.slice(l.indexOf('Cloud-init v.')));
    assert.ok(
      logged.some((l) => BANNER(stage).test(l)),
      `cloud-init.log has the ${stage} banner`,
    );
  }
  assert.equal(KILN_CLOUD_INIT_VERSION, '25.1.4');
  assert.doesNotMatch(out, /\(kiln\) running/);
});

// install_hotplug on a sandbox root with udevadm's calls recorded: the udev rule cloud-init 25.1 writes, byte for
// byte (with Ec2's own lines on Ec2), only for a source that supports hotplug with hotplug enabled; removed again when
// it no longer is.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { installHotplugModule } from '../../src/modules/install-hotplug';
import type { Platform, RunResult } from '../../src/platform/platform';
import { ensureDebianRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { moduleContext } from './module-context';

const RULE = '/etc/udev/rules.d/90-cloud-init-hook-hotplug.rules';
const HOTPLUG = { updates: { network: { when: ['hotplug'] } } };

/** The text 25.1 writes, spelled out here independently of the module. */
const EXPECTED = `# Installed by cloud-init due to network hotplug userdata
ACTION!="add|remove", GOTO="cloudinit_end"
LABEL="cloudinit_hook"
SUBSYSTEM=="net", RUN+="/usr/lib/cloud-init/hook-hotplug"
LABEL="cloudinit_end"
`;
/** On Ec2: 25.1's rule with Ec2's lines (only its NIC drivers reach the hook). */
const EXPECTED_EC2 = EXPECTED.replace(
  'GOTO="cloudinit_end"\n',
  'GOTO="cloudinit_end"\n\nENV{ID_NET_DRIVER}=="vif|ena|ixgbevf", GOTO="cloudinit_hook"\nGOTO="cloudinit_end"\n\n',
);

function setup(t: TestContext, datasource: string, opts: { udevadm?: boolean; paths?: string[] } = {}) {
  const root = tempDir(t);
  if (opts.udevadm !== false) {
    mkdirSync(join(root, 'usr/bin'), { recursive: true });
    writeFileSync(join(root, 'usr/bin/udevadm'), '#!/bin/sh\n');
    chmodSync(join(root, 'usr/bin/udevadm'), 0o755);
  }
  for (const p of opts.paths ?? []) mkdirSync(join(root, p), { recursive: true });
  const base = moduleContext(root);
  const calls: string[] = [];
  const real = base.platform;
  // Commands are recorded, not run (udevadm would talk to the host's udev); files go to the sandbox.
  const platform = new Proxy(real, {
    get(target, key) {
      if (key === 'run')
        return async (cmd: string[]): Promise<RunResult> => {
          calls.push(cmd.join(' '));
          return { code: 0, stdout: '', stderr: '' };
        };
      const v = Reflect.get(target, key, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  }) as Platform;
  return { root, ctx: { ...base, platform, datasource }, calls, base };
}

test("install_hotplug: OpenStack with updates.network.when [hotplug] writes 25.1's rule byte for byte and reloads udev", async (t) => {
  const s = setup(t, 'DataSourceOpenStackLocal [net,ver=2]');
  await installHotplugModule.run(s.ctx, HOTPLUG);
  assert.equal(readFileSync(join(s.root, RULE), 'utf8'), EXPECTED);
  assert.deepEqual(s.calls, ['udevadm control --reload-rules']);
});

test("install_hotplug: the rule is the same text as Debian 13's cloud-init 25.1 writes, Ec2's lines included", {
  timeout: 1_800_000,
}, async (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('debootstrap'),
      'needs root and debootstrap for the Debian rootfs with cloud-init 25.1',
    )
  )
    return;
  const pkg = join(ensureDebianRootfs('trixie'), 'usr/lib/python3/dist-packages/cloudinit');
  const py = readFileSync(join(pkg, 'config/cc_install_hotplug.py'), 'utf8');
  const template = /HOTPLUG_UDEV_RULES_TEMPLATE = """\\\n([\s\S]*?)"""/.exec(py)?.[1];
  assert.ok(template);
  assert.match(py, /HOTPLUG_UDEV_PATH = "\/etc\/udev\/rules.d\/90-cloud-init-hook-hotplug.rules"/);
  assert.equal(template.replace('{extra_rules}', '').replace('{libexecdir}', '/usr/lib/cloud-init'), EXPECTED);
  // Ec2's extra_hotplug_udev_rules, put in as cc_install_hotplug does ('\n' + the rules).
  const ec2Rules = /_EXTRA_HOTPLUG_UDEV_RULES = """([\s\S]*?)"""/.exec(
    readFileSync(join(pkg, 'sources/DataSourceEc2.py'), 'utf8'),
  )?.[1];
  assert.ok(ec2Rules);
  const s = setup(t, 'DataSourceEc2Local');
  await installHotplugModule.run(s.ctx, HOTPLUG);
  assert.equal(
    readFileSync(join(s.root, RULE), 'utf8'),
    template.replace('{extra_rules}', `\n${ec2Rules}`).replace('{libexecdir}', '/usr/lib/cloud-init'),
  );
});

test("install_hotplug: /usr/libexec/cloud-init, when present, is the hook's folder (Ec2)", async (t) => {
  const s = setup(t, 'DataSourceEc2Local', { paths: ['usr/libexec/cloud-init'] });
  await installHotplugModule.run(s.ctx, { updates: { network: { when: ['boot', 'hotplug'] } } });
  assert.equal(
    readFileSync(join(s.root, RULE), 'utf8'),
    EXPECTED_EC2.replace('/usr/lib/cloud-init/', '/usr/libexec/cloud-init/'),
  );
});

test("install_hotplug: NoCloud and Azure get the rule too when the user enables hotplug (22.4's base class supports it for every source)", async (t) => {
  for (const ds of ['DataSourceNoCloud [seed=/var/lib/cloud/seed/nocloud]', 'DataSourceAzure [seed=/dev/sr0]']) {
    const s = setup(t, ds);
    await installHotplugModule.run(s.ctx, HOTPLUG);
    assert.equal(readFileSync(join(s.root, RULE), 'utf8'), EXPECTED, ds);
    assert.deepEqual(s.ctx.problems, [], ds);
  }
});

test('install_hotplug: not enabled (the default events, or an unknown event name) removes a rule left from before', async (t) => {
  for (const cfg of [{}, { updates: { network: { when: ['hotplug', 'reboot'] } } }]) {
    const s = setup(t, 'DataSourceConfigDrive [net,ver=2][source=/dev/sr0]');
    mkdirSync(join(s.root, 'etc/udev/rules.d'), { recursive: true });
    writeFileSync(join(s.root, RULE), EXPECTED);
    await installHotplugModule.run(s.ctx, cfg);
    assert.equal(existsSync(join(s.root, RULE)), false);
    assert.deepEqual(s.calls, ['udevadm control --reload-rules']);
  }
});

test('install_hotplug: without udevadm nothing is written; hotplug.enabled (devel hotplug-hook enable) enables it without user config', async (t) => {
  const none = setup(t, 'DataSourceEc2', { udevadm: false });
  await installHotplugModule.run(none.ctx, HOTPLUG);
  assert.equal(existsSync(join(none.root, RULE)), false);
  const s = setup(t, 'DataSourceEc2');
  mkdirSync(join(s.root, 'var/lib/cloud'), { recursive: true });
  writeFileSync(join(s.root, 'var/lib/cloud/hotplug.enabled'), '{"scopes": ["network"]}');
  await installHotplugModule.run(s.ctx, {});
  assert.equal(readFileSync(join(s.root, RULE), 'utf8'), EXPECTED_EC2);
});

test("install_hotplug's schema: updates.network.when takes the four event names; another name or key is an error naming it and its line", async () => {
  const { validateCloudConfig } = await import('../../src/config/validate-cloud-config');
  assert.deepEqual(
    validateCloudConfig(
      '#cloud-config\nupdates:\n  network:\n    when: [boot, boot-legacy, boot-new-instance, hotplug]\n',
    ).problems,
    [],
  );
  const bad = validateCloudConfig(
    '#cloud-config\nupdates:\n  network:\n    when: [hotplug, reboot]\n  storage: {}\n',
  ).problems;
  assert.ok(
    bad.some((p) => p.path === 'updates.network.when.1' && p.line === 4),
    JSON.stringify(bad),
  );
  assert.ok(
    bad.some((p) => p.path === 'updates' && /'storage' was unexpected/.test(p.message)),
    JSON.stringify(bad),
  );
});

test('install_hotplug reads updates as before its typed config: an unknown event warned about once, other shapes as no user events', async (t) => {
  const s = setup(t, 'DataSourceOpenStackLocal [net,ver=2]');
  await installHotplugModule.run(s.ctx, { updates: { network: { when: ['hotplug', 'reboot'] } } });
  assert.equal(existsSync(join(s.root, RULE)), false);
  const warned = s.base.lines.filter((l) => l.includes('WARNING'));
  assert.equal(warned.length, 1, warned.join(''));
  assert.match(warned[0] ?? '', /'reboot' is not a valid EventType! Update data will be ignored for 'network' scope/);
  for (const updates of ['hotplug', { network: { when: 'hotplug' } }, { network: null }])
    await installHotplugModule.run(s.ctx, { updates });
  assert.equal(existsSync(join(s.root, RULE)), false);
  // A scope cloud-init does not know is left out, the network scope still read.
  await installHotplugModule.run(s.ctx, { updates: { storage: { when: ['boot'] }, network: { when: ['hotplug'] } } });
  assert.equal(readFileSync(join(s.root, RULE), 'utf8'), EXPECTED);
});

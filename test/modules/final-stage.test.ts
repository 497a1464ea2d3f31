// Final-stage modules: final_message, power_state_change, phone_home, ssh_authkey_fingerprints, packages,
// write_files_deferred.
import assert from 'node:assert/strict';
import { KILN_CLOUD_INIT_VERSION } from '../../src/build-info';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { createFinalMessageModule, finalMessageModule, timeRfc2822 } from '../../src/modules/final-message';
import {
  createPackageUpdateUpgradeInstallModule,
  expandPackageList,
} from '../../src/modules/package-update-upgrade-install';
import { createPhoneHomeModule, fetchFormPoster } from '../../src/modules/phone-home';
import { createPowerStateChangeModule, loadPowerState, powerStateScript } from '../../src/modules/power-state-change';
import { keyFingerprint, pyCenter, sshAuthkeyFingerprintsModule } from '../../src/modules/ssh-authkey-fingerprints';
import { writeFilesDeferredModule } from '../../src/modules/write-files-deferred';
import { distroOpsFor } from '../../src/platform/linux/distro/detect-distro';
import { FileSink, Logger } from '../../src/util/log';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { dryContext, linkInstanceDir } from './late-context';
import { moduleContext } from './module-context';

const FIXED = new Date(Date.UTC(2026, 10, 22, 4, 5, 6));

test('final_message renders $vars and {{vars}}, writes boot-finished with uptime, time and version', async (t) => {
  const root = tempDir(t);
  linkInstanceDir(root);
  mkdirSync(join(root, 'proc'));
  writeFileSync(join(root, 'proc/uptime'), '123.45 678.90\n');
  const mod = createFinalMessageModule({ now: () => FIXED, version: '9.9.9' });
  // The runner gives the modules str(datasource), as status.json names the source (runner/describe-source.ts).
  const found = 'DataSourceNoCloud [seed=/var/lib/cloud/seed/nocloud]';
  const ctx = { ...moduleContext(root), datasource: found };
  await mod.run(ctx, { final_message: 'done $version on $DATASOURCE after ${uptime}s' });
  assert.equal(ctx.outputText(), 'done 9.9.9 on DataSourceNoCloud [seed=/var/lib/cloud/seed/nocloud] after 123.45s\n');
  assert.equal(
    readFileSync(join(root, 'var/lib/cloud/instances/iid-test-1/boot-finished'), 'utf8'),
    '123.45 - Sun, 22 Nov 2026 04:05:06 +0000 - v. 9.9.9\n',
  );
  const ctx2 = { ...moduleContext(root), datasource: found };
  await mod.run(ctx2, {});
  assert.equal(
    ctx2.outputText(),
    'Cloud-init v. 9.9.9 finished at Sun, 22 Nov 2026 04:05:06 +0000. Datasource DataSourceNoCloud [seed=/var/lib/cloud/seed/nocloud].  Up 123.45 seconds\n',
  );
  assert.equal(timeRfc2822(FIXED), 'Sun, 22 Nov 2026 04:05:06 +0000');
  const ctx3 = moduleContext(root);
  await mod.run(ctx3, { final_message: '$datasource' });
  assert.equal(ctx3.outputText(), 'DataSourceNone\n', 'no source found: DataSourceNone');
});

test('power_state_change plans a detached wait-then-shutdown, never runs it, and honours condition false', async (t) => {
  const root = tempDir(t);
  const mod = createPowerStateChangeModule({ pid: () => 4242 });
  const ctx = dryContext(root);
  await mod.run(ctx, {
    power_state: { mode: 'reboot', delay: '+5', message: "bye 'now'", timeout: 7.5, condition: 'test -e /run/go' },
  });
  const [cmd] = ctx.commands();
  assert.ok(cmd, 'one command planned');
  assert.match(cmd, /^sh -c \( end=\$\(\( \$\(date \+%s\) \+ 8 \)\); while kill -0 4242 /);
  assert.match(cmd, /sh -c 'test -e \/run\/go'; rc=\$\?/);
  assert.match(cmd, /exec 'shutdown' '-r' '\+5' 'bye '\\''now'\\'''/);
  assert.match(cmd, /\) <\/dev\/null >\/dev\/null 2>&1 &$/);
  const ctx2 = dryContext(root);
  await mod.run(ctx2, { power_state: { mode: 'poweroff', condition: false } });
  await mod.run(ctx2, { power_state: { mode: 'explode' } });
  assert.deepEqual(ctx2.commands(), []);
  assert.ok(
    ctx2.lines.some((l) =>
      l.includes(
        "power_state[mode] required, must be one of: halt,poweroff,reboot. found: 'explode'. Not performing power state change!",
      ),
    ),
  );
  assert.deepEqual(loadPowerState({ power_state: { mode: 'halt' } })?.command, ['shutdown', '-H', 'now']);
  assert.throws(() => loadPowerState({ power_state: { mode: 'halt', delay: 'soon' } }), /must be 'now' or '\+m'/);
});

test('power_state_change reads power_state as load_power_state does, and only warns about what it cannot read', async (t) => {
  const mod = createPowerStateChangeModule({ pid: () => 4242 });
  const ctx = dryContext(tempDir(t));
  // float() of a timeout string, int() of a delay number: both beyond the schema, both taken by cloud-init.
  await mod.run(ctx, { power_state: { mode: 'halt', delay: 3.9, timeout: ' 2.5 ', message: 0 } });
  const [cmd] = ctx.commands();
  assert.ok(cmd, 'one command planned');
  assert.match(cmd, /\+ 3 \)\); while kill -0 4242 /);
  assert.match(cmd, /exec 'shutdown' '-H' '\+3' \) </);
  const warned = dryContext(tempDir(t));
  for (const power_state of [
    'reboot',
    { mode: 'REBOOT' },
    { mode: 'reboot', delay: 'soon' },
    { mode: 'reboot', timeout: 'long' },
    { mode: 'reboot', condition: 5 },
    // A key set to null is not its default in load_power_state: int(None), float(None), a None condition.
    { mode: 'reboot', delay: null },
    { mode: 'reboot', timeout: null },
    { mode: 'reboot', condition: null },
    { mode: 'reboot', delay: [5] },
    { mode: 'reboot', timeout: { s: 1 } },
    { mode: ['reboot'] },
  ]) {
    await mod.run(warned, { power_state });
  }
  assert.deepEqual(warned.commands(), []);
  assert.deepEqual(
    warned.lines.filter((l) => l.includes('WARNING')).map((l) => l.replace(/.*WARNING[^:]*: /, '').trim()),
    [
      'power_state is not a dict. Not performing power state change!',
      "power_state[mode] required, must be one of: halt,poweroff,reboot. found: 'REBOOT'. Not performing power state change!",
      "power_state[delay] must be 'now' or '+m' (minutes). found 'soon'. Not performing power state change!",
      "failed to convert timeout 'long' to float. Not performing power state change!",
      'condition type %s invalid. must be list, bool, str Not performing power state change!',
      "int() argument must be a string, a bytes-like object or a real number, not 'NoneType' Not performing power state change!",
      "float() argument must be a string or a real number, not 'NoneType' Not performing power state change!",
      'condition type %s invalid. must be list, bool, str Not performing power state change!',
      "int() argument must be a string, a bytes-like object or a real number, not 'list' Not performing power state change!",
      "float() argument must be a string or a real number, not 'dict' Not performing power state change!",
      "unhashable type: 'list' Not performing power state change!",
    ],
  );
  // int() and float() of a bool, int() of a signed or underscored string: taken as Python takes them.
  const taken = dryContext(tempDir(t));
  await mod.run(taken, { power_state: { mode: 'halt', delay: true, timeout: true } });
  await mod.run(taken, { power_state: { mode: 'halt', delay: ' 1_0 ', timeout: '1e1' } });
  const [first, second] = taken.commands();
  assert.match(first ?? '', /\+ 1 \)\); while .* exec 'shutdown' '-H' '\+1' \)/);
  assert.match(second ?? '', /\+ 10 \)\); while .* exec 'shutdown' '-H' '\+10' \)/);
  // handle joins the command line outside its try: a message that is not a str fails the module.
  await assert.rejects(
    mod.run(dryContext(tempDir(t)), { power_state: { mode: 'halt', message: 5 } }),
    /sequence item 3: expected str instance, int found/,
  );
});

test('power_state: a condition exiting 2 or more logs the check_condition warning to the log file', async (t) => {
  if (!need(t, hasCommand('sh'), 'no sh')) return;
  const root = tempDir(t);
  const logger = new Logger();
  const logFile = join(root, 'var/log/cloud-init.log');
  logger.addSink(new FileSink('DEBUG', logFile));
  const ctx = { ...dryContext(root), log: logger.for('cc_power_state_change.py') };
  const mod = createPowerStateChangeModule({ pid: () => 4242 });
  await mod.run(ctx, { power_state: { mode: 'reboot', condition: ['sh', '-c', 'exit 3'] } });
  const [cmd] = ctx.commands();
  assert.ok(cmd?.includes(">>'/var/log/cloud-init.log'"), 'the file inside the root, where the script runs');
  // The same script with the file's host path, a harmless command and no pid to wait for.
  const script = powerStateScript(
    { command: ['touch', join(root, 'ran')], timeoutSeconds: 5, condition: ['sh', '-c', 'exit 3'] },
    999_999_999,
    { files: [logFile], source: 'cc_power_state_change.py' },
  );
  spawnSync('sh', ['-c', script]);
  assert.ok(!existsSync(join(root, 'ran')));
  assert.match(
    readFileSync(logFile, 'utf8'),
    /\n\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} - cc_power_state_change\.py\[WARNING\]: check_condition command \(\['sh', '-c', 'exit 3'\]\): unexpected exit 3\. do not apply change\.\n$/,
  );
});

test('the power_state script waits for the pid, checks the condition, and only then runs the command (a harmless one)', (t) => {
  if (!need(t, hasCommand('sh'), 'no sh')) return;
  const dir = tempDir(t);
  const marker = join(dir, 'ran');
  const mk = (condition: boolean | string) =>
    powerStateScript({ command: ['touch', marker], timeoutSeconds: 5, condition }, 999_999_999).replace(
      /exec /,
      'exec ',
    );
  spawnSync('sh', ['-c', mk(false)]);
  assert.ok(!existsSync(marker));
  spawnSync('sh', ['-c', mk('exit 1')]);
  assert.ok(!existsSync(marker));
  spawnSync('sh', ['-c', mk(`test -d ${dir}`)]);
  assert.ok(existsSync(marker));
});

test('phone_home posts the selected keys to a 127.0.0.1 server and records a failure after its tries', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc/ssh'), { recursive: true });
  writeFileSync(join(root, 'etc/ssh/ssh_host_ed25519_key.pub'), 'ssh-ed25519 AAAA host\n');
  const bodies: Array<{ url: string; body: string; type: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      bodies.push({ url: req.url ?? '', body, type: req.headers['content-type'] ?? '' });
      res.statusCode = req.url?.includes('fail') ? 503 : 200;
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const port = (server.address() as AddressInfo).port;
  const sleeps: number[] = [];
  const mod = createPhoneHomeModule({
    post: fetchFormPoster,
    secondsBetween: 3,
    sleep: async (ms) => void sleeps.push(ms),
  });
  const ctx = moduleContext(root, { instance: { localHostname: 'host1.example.internal' } });
  await mod.run(ctx, {
    phone_home: {
      url: `http://127.0.0.1:${port}/$INSTANCE_ID/`,
      post: ['instance_id', 'hostname', 'fqdn', 'pub_key_ed25519', 'pub_key_rsa', 'pub_key_dsa'],
    },
  });
  assert.equal(bodies.length, 1);
  assert.equal(bodies[0]?.url, '/iid-test-1/');
  assert.equal(bodies[0]?.type, 'application/x-www-form-urlencoded');
  const form = new URLSearchParams(bodies[0]?.body);
  assert.equal(form.get('instance_id'), 'iid-test-1');
  assert.equal(form.get('hostname'), 'host1');
  assert.equal(form.get('fqdn'), 'host1.example.internal');
  assert.equal(form.get('pub_key_ed25519'), 'ssh-ed25519 AAAA host\n');
  assert.equal(form.get('pub_key_rsa'), 'N/A');
  // 25.1 (since 24.1) knows no DSA key: asked for, it is posted as N/A with a warning.
  assert.equal(form.get('pub_key_dsa'), 'N/A');
  assert.ok(
    ctx.lines.some((l) => l.includes("Requested key pub_key_dsa from 'post' configuration list not available")),
  );
  // cloud-init posts cloud.get_hostname(): the datasource's names, never the config's hostname or fqdn.
  await mod.run(ctx, {
    hostname: 'from-config',
    fqdn: 'from-config.example.org',
    phone_home: { url: `http://127.0.0.1:${port}/cfg/`, post: ['hostname', 'fqdn'] },
  });
  const named = new URLSearchParams(bodies.pop()?.body);
  assert.deepEqual([named.get('hostname'), named.get('fqdn')], ['host1', 'host1.example.internal']);
  await mod.run(ctx, { phone_home: { url: `http://127.0.0.1:${port}/fail`, tries: 3 } });
  assert.equal(bodies.length, 4);
  // 'all', the default: 25.1's POST_LIST_ALL, in its order.
  assert.deepEqual(
    [...new URLSearchParams(bodies[1]?.body).keys()],
    ['pub_key_rsa', 'pub_key_ecdsa', 'pub_key_ed25519', 'instance_id', 'hostname', 'fqdn'],
  );
  assert.deepEqual(sleeps, [3000, 3000]);
  assert.ok(ctx.problems.some((p) => /Failed to post phone home data to .*\/fail in 3 tries: HTTP 503/.test(p)));
});

test('ssh_authkey_fingerprints prints a table whose md5 fingerprint matches ssh-keygen', async (t) => {
  const root = tempDir(t);
  const dir = tempDir(t);
  if (!need(t, hasCommand('ssh-keygen'), 'ssh-keygen (openssh-client) is not installed')) return;
  spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'me@test', '-f', join(dir, 'k')]);
  const pub = readFileSync(join(dir, 'k.pub'), 'utf8').trim();
  const md5 = spawnSync('ssh-keygen', ['-l', '-E', 'md5', '-f', join(dir, 'k.pub')], { encoding: 'utf8' })
    .stdout.split(' ')[1]
    ?.replace(/^MD5:/, '');
  mkdirSync(join(root, 'etc'), { recursive: true });
  writeFileSync(join(root, 'etc/passwd'), 'debian:x:1000:1000::/home/debian:/bin/bash\n');
  mkdirSync(join(root, 'home/debian/.ssh'), { recursive: true });
  writeFileSync(join(root, 'home/debian/.ssh/authorized_keys'), `# comment\nno-pty ${pub}\n`);
  const ctx = moduleContext(root);
  await sshAuthkeyFingerprintsModule.run(ctx, {
    system_info: { default_user: { name: 'debian' } },
    users: ['default', { name: 'svc', system: true }],
    authkey_hash: 'md5',
  });
  const out = ctx.outputText();
  assert.match(out, /^ci-info: \+*Authorized keys from \/home\/debian\/\.ssh\/authorized_keys for user debian\+*\n/);
  assert.ok(out.includes(md5 as string), `fingerprint ${md5} in\n${out}`);
  assert.ok(out.includes('| ssh-ed25519 |'));
  assert.ok(out.includes('|  no-pty |') || out.includes('| no-pty |'));
  assert.equal(keyFingerprint(pub.split(' ')[1], 'md5'), md5);
  // A configured user without keys gets an empty authorized_keys (0600, owned by the user), as check_create_path does.
  writeFileSync(join(root, 'etc/passwd'), 'debian:x:1000:1000::/home/debian:/bin/bash\nbob:x:0:0::/srv/bob:/bin/sh\n');
  const ctx2 = moduleContext(root);
  await sshAuthkeyFingerprintsModule.run(ctx2, { users: [{ name: 'bob' }] });
  assert.equal(readFileSync(join(root, 'srv/bob/.ssh/authorized_keys'), 'utf8'), '');
  assert.equal(statSync(join(root, 'srv/bob/.ssh')).mode & 0o777, 0o700);
  assert.equal(statSync(join(root, 'srv/bob/.ssh/authorized_keys')).mode & 0o777, 0o600);
  assert.equal(ctx2.outputText(), 'ci-info: no authorized SSH keys fingerprints found for user bob.\n');
  assert.equal(pyCenter('ab', 5, '+'), '++ab+');
  assert.equal(pyCenter('ab', 7, '+'), '+++ab++');
  assert.equal(pyCenter('abc', 6, '+'), '+abc++');
  // authkey_hash: null is get_cfg_option_str's 'None', a hash that does not exist: '?' fingerprints, as upstream's
  // _gen_fingerprint; a user's dashed no-create-home is read as no_create_home and skips the user.
  const ctx3 = moduleContext(root);
  await sshAuthkeyFingerprintsModule.run(ctx3, {
    users: [{ name: 'debian' }, { name: 'bob', 'no-create-home': 'yes' }],
    authkey_hash: null,
  });
  assert.match(ctx3.outputText(), /\| Fingerprint \(None\) \|[\s\S]*\| ssh-ed25519 \| +\? +\|/);
  assert.ok(!ctx3.outputText().includes('user bob'));
  // Every line is an entry (parse_authorized_keys): a file of comments and an ssh-dss key (no key type 25.1 knows
  // since 24.1) gives the table with no rows, not the "no keys" line.
  writeFileSync(join(root, 'home/debian/.ssh/authorized_keys'), '# only a comment\nssh-dss AAAAB3NzaC1kc3M= old@dsa\n');
  const ctx4 = moduleContext(root);
  await sshAuthkeyFingerprintsModule.run(ctx4, { users: [{ name: 'debian' }] });
  const table = ctx4.outputText();
  assert.match(table, /Authorized keys from \/home\/debian\/\.ssh\/authorized_keys for user debian/);
  assert.ok(table.includes('| Keytype |') && !table.includes('ssh-dss'), table);
});

test('package_update_upgrade_install: update, upgrade, install with versions, reboot when required (planned only)', async (t) => {
  const root = tempDir(t);
  const sleeps: number[] = [];
  const mod = createPackageUpdateUpgradeInstallModule({
    sleep: async (ms) => void sleeps.push(ms),
    distroOps: (c) => distroOpsFor(c.platform, c.distro),
  });
  const ctx = dryContext(root);
  await mod.run(ctx, { package_update: true, package_upgrade: true, packages: ['jq', ['curl', '7.88']] });
  const apt =
    'apt-get --option=Dpkg::Options::=--force-confold --option=Dpkg::options::=--force-unsafe-io --assume-yes --quiet';
  // Apt.install_packages asks `apt-cache pkgnames` first (a dry run answers nothing: every name stays in).
  assert.deepEqual(ctx.commands(), [
    `${apt} update`,
    `${apt} dist-upgrade`,
    'apt-cache pkgnames',
    `${apt} install jq curl=7.88`,
  ]);
  mkdirSync(join(root, 'var/run'), { recursive: true });
  writeFileSync(join(root, 'var/run/reboot-required'), '');
  const ctx2 = dryContext(root, { distro: { name: 'fedora', family: 'redhat', version: '40' } });
  await assert.rejects(mod.run(ctx2, { packages: ['vim'], package_reboot_if_required: true }), /Reboot did not happen/);
  // 25.1 refreshes the index only for package_update or package_upgrade: `packages` alone installs, no makecache.
  assert.deepEqual(ctx2.commands(), ['dnf -t -y install vim', '/sbin/reboot']);
  assert.deepEqual(sleeps, [1000, 2000, 4000, 8000, 16000, 32000]);
  // 25.1 also reboots for Alpine's marker, /run/reboot-needed, and names the marker it found.
  const alpineRoot = tempDir(t);
  mkdirSync(join(alpineRoot, 'run'), { recursive: true });
  writeFileSync(join(alpineRoot, 'run/reboot-needed'), '');
  const alpine = dryContext(alpineRoot, { distro: { name: 'alpine', family: 'alpine', version: '3.19' } });
  await assert.rejects(mod.run(alpine, { packages: ['vim'], package_reboot_if_required: true }), /Reboot did not/);
  assert.equal(alpine.commands().at(-1), '/sbin/reboot');
  assert.ok(
    alpine.lines.some((l) =>
      l.includes('[INFO]: ***WARNING*** Rebooting after upgrade or install per /run/reboot-needed'),
    ),
  );
  assert.ok(alpine.lines.some((l) => l.includes('[WARNING]: Requested reboot did not happen!')));
  for (const [distro, expected] of [
    [
      { name: 'opensuse-leap', family: 'suse', version: '15' },
      'zypper --non-interactive install --auto-agree-with-licenses vim',
    ],
    [{ name: 'alpine', family: 'alpine', version: '3.19' }, 'apk add --quiet vim'],
    [{ name: 'arch', family: 'arch', version: '' }, 'pacman -Sy --quiet --noconfirm vim'],
  ] as const) {
    const c = dryContext(tempDir(t), { distro: { ...distro } });
    await mod.run(c, { packages: ['vim'] });
    assert.equal(c.commands().at(-1), expected);
  }
  const none = dryContext(root);
  await mod.run(none, { packages: [] });
  assert.deepEqual(none.commands(), []);
  assert.deepEqual(expandPackageList([['a', 1]], 'redhat'), ['a-1']);
  assert.throws(() => expandPackageList([{ a: 1 }], 'debian'), /packages\[0\]/);
});

test('package_update_upgrade_install: {apt: …} and {snap: …} entries go to their managers as newer upstream; apt failures fall to snap on Ubuntu', async (t) => {
  const mod = createPackageUpdateUpgradeInstallModule({
    sleep: async () => undefined,
    distroOps: (c) => distroOpsFor(c.platform, c.distro),
  });
  const apt =
    'apt-get --option=Dpkg::Options::=--force-confold --option=Dpkg::options::=--force-unsafe-io --assume-yes --quiet';
  const ubuntu = { name: 'ubuntu', family: 'debian', version: '24.04' } as const;
  const withSnap = (): string => {
    const root = tempDir(t);
    mkdirSync(join(root, 'usr/bin'), { recursive: true });
    writeFileSync(join(root, 'usr/bin/snap'), '');
    return root;
  };
  const packages = ['jq', { apt: [['curl', '7.88']], snap: ['lxd', ['juju', '3.1/stable']] }, { pip: ['x'] }];
  const c = dryContext(withSnap(), { distro: { ...ubuntu } });
  await mod.run(c, { packages });
  assert.deepEqual(c.commands(), [
    `${apt} update`,
    'apt-cache pkgnames',
    `${apt} install jq curl=7.88`,
    'snap install lxd',
    'snap install juju --channel=3.1/stable',
  ]);
  assert.deepEqual(c.problems, [
    "ERROR: Cannot install packages under 'pip' as it is not a supported package manager!",
  ]);
  // Debian lists only apt, yet snap entries are still installed by snap (a manager the distro does not list).
  const d = dryContext(tempDir(t));
  await mod.run(d, { packages: [{ snap: ['hello'] }] });
  assert.deepEqual(d.commands(), ['snap install hello']);
  // On Ubuntu a plain package apt does not know (`apt-cache pkgnames`) is tried with snap; {apt: …} ones are not.
  const f = dryContext(withSnap(), { distro: { ...ubuntu } });
  const run = f.platform.run.bind(f.platform);
  f.platform.run = async (argv, opts) =>
    String(argv) === 'apt-cache,pkgnames' ? { code: 0, stdout: 'jq\napt\n', stderr: '' } : run(argv, opts);
  await assert.rejects(
    mod.run(f, { packages: ['only-a-snap', 'jq', { apt: ['aptonly'] }] }),
    /^ModuleError: .*Failed to install the following packages: \{'aptonly'\}\. See associated package manager logs/,
  );
  assert.deepEqual(f.commands(), [`${apt} update`, `${apt} install jq`, 'snap install only-a-snap']);
  assert.ok(
    f.lines.some((l) =>
      l.includes(
        "[INFO]: Failed to install the following packages: ['only-a-snap', 'aptonly']. See associated package manager logs for more details.",
      ),
    ),
  );
  assert.ok(
    f.lines.some((l) =>
      l.includes("[WARNING]: Failure when attempting to install packages: ['only-a-snap', 'jq', {'apt': ['aptonly']}]"),
    ),
  );
  // A manager that is not the distro's: apt entries on Fedora fail by name.
  const r = dryContext(tempDir(t), { distro: { name: 'fedora', family: 'redhat', version: '40' } });
  await assert.rejects(mod.run(r, { packages: ['vim', { apt: ['jq'] }] }), /following packages: \{'jq'\}\./);
  assert.deepEqual(r.commands(), ['dnf -t -y install vim']);
  await assert.rejects(
    mod.run(dryContext(tempDir(t)), { packages: [{ apt: [['a', 'b', 'c']] }] }),
    /packages\[0\]\.apt\[0\]/,
  );
});

test('package_update_upgrade_install: a failed apt-get update is an ERROR on Debian only; a failed apt-get install escapes before snap; names apt does not list are left out', async (t) => {
  const mod = createPackageUpdateUpgradeInstallModule({
    sleep: async () => undefined,
    distroOps: (c) => distroOpsFor(c.platform, c.distro),
  });
  const apt =
    'apt-get --option=Dpkg::Options::=--force-confold --option=Dpkg::options::=--force-unsafe-io --assume-yes --quiet';
  type Ctx = ReturnType<typeof dryContext>;
  const answer = (c: Ctx, fake: (cmd: string) => { code: number; stdout: string; stderr: string } | undefined) => {
    const run = c.platform.run.bind(c.platform);
    c.platform.run = async (argv, opts) => {
      const r = Array.isArray(argv) ? fake(argv.join(' ')) : undefined;
      if (r === undefined) return run(argv, opts);
      await run(argv, opts);
      if (r.code !== 0 && !opts?.allowFailure) throw new Error(`${String(argv)} failed`);
      return r;
    };
  };
  // Debian's update_package_sources logs the manager's failure as an ERROR and goes on: the module succeeds.
  const deb = dryContext(tempDir(t));
  answer(deb, (cmd) => (cmd === `${apt} update` ? { code: 100, stdout: '', stderr: 'E: no network\n' } : undefined));
  await mod.run(deb, { package_update: true, packages: ['jq'] });
  assert.equal(deb.problems.length, 1);
  assert.match(deb.problems[0] as string, /^ERROR: Failed to update package using apt: /);
  // The install's own refresh is the same once-per-instance one: not run again.
  assert.deepEqual(deb.commands(), [`${apt} update`, 'apt-cache pkgnames', `${apt} install jq`]);
  // RHEL's does not catch it: the module fails (after the install).
  const fedora = dryContext(tempDir(t), { distro: { name: 'fedora', family: 'redhat', version: '40' } });
  answer(fedora, (cmd) => (cmd === 'dnf makecache' ? { code: 1, stdout: '', stderr: '' } : undefined));
  await assert.rejects(mod.run(fedora, { package_update: true, packages: ['vim'] }), /dnf makecache/);
  assert.deepEqual(fedora.commands(), ['dnf makecache', 'dnf -t -y install vim']);
  assert.ok(fedora.lines.some((l) => l.includes('[WARNING]: Package update failed')));
  // Ubuntu: apt-get install failing ends install_packages; snap is not tried for the plain entries.
  const root = tempDir(t);
  mkdirSync(join(root, 'usr/bin'), { recursive: true });
  writeFileSync(join(root, 'usr/bin/snap'), '');
  const ubuntu = dryContext(root, { distro: { name: 'ubuntu', family: 'debian', version: '24.04' } });
  answer(ubuntu, (cmd) =>
    cmd === 'apt-cache pkgnames'
      ? { code: 0, stdout: 'jq\napt\n', stderr: '' }
      : cmd.startsWith(`${apt} install`)
        ? { code: 100, stdout: '', stderr: 'E: broken\n' }
        : undefined,
  );
  await assert.rejects(mod.run(ubuntu, { packages: ['jq', { snap: ['hello'] }] }), /exited with code 100/);
  assert.deepEqual(ubuntu.commands(), [`${apt} update`, 'apt-cache pkgnames', `${apt} install jq`]);
  // Names apt does not know are left out and reported (a version, target release, trailing - or ^ stripped to
  // compare); as 25.1, [name, version] of an unknown name is reported and still passed to apt-get.
  const dd = dryContext(tempDir(t));
  answer(dd, (cmd) =>
    cmd === 'apt-cache pkgnames' ? { code: 0, stdout: 'jq\nvim\nlamp-server\n', stderr: '' } : undefined,
  );
  await assert.rejects(
    mod.run(dd, { packages: ['jq', 'vim/trixie-backports', 'lamp-server^', 'nosuch', ['curl', '1']] }),
    /Failed to install the following packages: \{'nosuch', 'curl'\}\. See associated/,
  );
  assert.deepEqual(dd.commands().slice(-1), [`${apt} install jq vim/trixie-backports lamp-server^ curl=1`]);
  assert.ok(
    dd.lines.some((l) =>
      l.includes(
        "[DEBUG]: The following packages were not found by APT so APT will not attempt to install them: ['nosuch', 'curl']",
      ),
    ),
  );
  assert.ok(
    dd.lines.some((l) =>
      l.includes(
        "[WARNING]: Failure when attempting to install packages: ['jq', 'vim/trixie-backports', 'lamp-server^', 'nosuch', ['curl', '1']]",
      ),
    ),
  );
});

test('write_files_deferred writes only the deferred entries', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc'), { recursive: true });
  writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0::/root:/bin/sh\n');
  writeFileSync(join(root, 'etc/group'), 'root:x:0:\n');
  await writeFilesDeferredModule.run(moduleContext(root), {
    write_files: [
      { path: '/etc/now', content: 'now' },
      { path: '/etc/later', content: 'later', defer: true, permissions: '0600' },
    ],
  });
  assert.ok(!existsSync(join(root, 'etc/now')));
  assert.equal(readFileSync(join(root, 'etc/later'), 'utf8'), 'later');
});

test("the registered final_message names the cloud-init release kiln reproduces, as 25.1's names its own (its message and boot-finished)", async (t) => {
  const root = tempDir(t);
  linkInstanceDir(root);
  mkdirSync(join(root, 'proc'));
  writeFileSync(join(root, 'proc/uptime'), '5.00 1.00\n');
  const ctx = { ...moduleContext(root), datasource: 'DataSourceNoCloud [seed=/dev/sr0]' };
  await finalMessageModule.run(ctx, {});
  assert.match(
    ctx.outputText(),
    new RegExp(`^Cloud-init v\\. ${KILN_CLOUD_INIT_VERSION.replaceAll('.', '\\.')} finished at `),
  );
  assert.match(
    readFileSync(join(root, 'var/lib/cloud/instances/iid-test-1/boot-finished'), 'utf8'),
    new RegExp(` - v\\. ${KILN_CLOUD_INIT_VERSION.replaceAll('.', '\\.')}\\n$`),
  );
});

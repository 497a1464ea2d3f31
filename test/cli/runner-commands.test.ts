// The cloud-init verbs against a sandbox root that a fake boot has filled in.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/main';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { processUserDataOnLinux } from '../../src/runner/process-user-data-linux';
import { StageRunner } from '../../src/runner/stage-runner';
import { Logger } from '../../src/util/log';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { fakeDeps, fakeSource, recordingModule, type Recorder } from '../runner/fakes';

async function cli(args: string[], env: Record<string, string> = {}) {
  let out = '';
  let err = '';
  const code = await main({
    argv: args,
    argv0: '/usr/bin/cloud-init',
    env: { KILN_STATUS_POLL_MS: '20', ...env },
    io: { out: (s) => void (out += s), err: (s) => void (err += s) },
  });
  return { code, out, err };
}

async function bootedRoot(
  t: Parameters<typeof tempDir>[0],
  opts: { fail?: boolean; warn?: string; userData?: string } = {},
): Promise<string> {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc/cloud/cloud.cfg.d'), { recursive: true });
  writeFileSync(
    join(root, 'etc/cloud/cloud.cfg.d/50-test.cfg'),
    'datasource_list: [Fake]\ncloud_init_modules: []\ncloud_config_modules: [m]\ncloud_final_modules: []\n',
  );
  mkdirSync(join(root, 'seed/fake'), { recursive: true });
  writeFileSync(join(root, 'seed/fake/instance-id'), 'i-42\n');
  writeFileSync(join(root, 'seed/fake/user-data'), opts.userData ?? '#cloud-config\npassword: s3cretpass\n');
  mkdirSync(join(root, 'var/lib/cloud/seed/nocloud'), { recursive: true });
  writeFileSync(join(root, 'var/lib/cloud/seed/nocloud/meta-data'), 'instance-id: i-42\n');
  const rec: Recorder = { runs: [] };
  const logger = new Logger();
  const mod = recordingModule(rec, 'm', 'config', 'always', {
    ...(opts.fail ? { fail: true } : {}),
    ...(opts.warn ? { warn: opts.warn } : {}),
  });
  await new StageRunner({
    platform: new LinuxPlatform({ root, log: logger.for('p') }),
    logger,
    deps: fakeDeps([fakeSource()], [mod], opts.userData ? { processUserData: processUserDataOnLinux } : {}),
  }).runAllStages();
  return root;
}

test('status: exit 0 when done, --long, json and yaml in the shape of cloud-init 25.1', async (t) => {
  const root = await bootedRoot(t);
  const s = await cli(['--root', root, 'status']);
  assert.equal(s.code, 0, s.err);
  assert.equal(s.out, 'status: done\n');
  const long = await cli(['--root', root, 'status', '--long', '--wait']);
  assert.equal(long.code, 0);
  assert.match(
    long.out,
    /^status: done\nextended_status: done\nboot_status_code: enabled-by-sysvinit\nlast_update: \w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d \+0000\ndetail: DataSourceFake\nerrors: \[\]\nrecoverable_errors: \{\}\n$/,
  );
  const text = (await cli(['--root', root, 'status', '--format', 'json'])).out;
  const j = JSON.parse(text);
  // cloud-init's eight fields, then status.json's v1 without datasource; sorted, two-space indent.
  assert.deepEqual(Object.keys(j), [
    'boot_status_code',
    'datasource',
    'detail',
    'errors',
    'extended_status',
    'init',
    'init-local',
    'last_update',
    'modules-config',
    'modules-final',
    'recoverable_errors',
    'stage',
    'status',
  ]);
  assert.match(text, /^\{\n {2}"boot_status_code": "enabled-by-sysvinit",\n {2}"datasource": "fake",\n/);
  assert.equal(j.status, 'done');
  assert.equal(j.extended_status, 'done');
  assert.equal(j.detail, 'DataSourceFake');
  assert.deepEqual(j.errors, []);
  assert.deepEqual(j.recoverable_errors, {});
  assert.equal(j.stage, null);
  assert.equal(j._schema_version, undefined);
  for (const stage of ['init-local', 'init', 'modules-config', 'modules-final']) {
    assert.equal(typeof j[stage].start, 'number', stage);
    assert.equal(typeof j[stage].finished, 'number', stage);
    assert.deepEqual(j[stage].errors, [], stage);
    assert.deepEqual(j[stage].recoverable_errors, {}, stage);
  }
  const yaml = (await cli(['--root', root, 'status', '--format', 'yaml'])).out;
  assert.match(yaml, /^---\nboot_status_code: enabled-by-sysvinit\ndatasource: fake\n/);
  // PyYAML's document end, then the line break print() adds.
  assert.match(yaml, /\n\.\.\.\n\n$/);
  assert.equal((await cli(['--root', root, 'status', '--format', 'xml'])).code, 2);
});

test('status: a failed module is an error (exit 1, "error - done"), as cloud-init 22.4 and 23.4+ report it', async (t) => {
  const bad = await bootedRoot(t, { fail: true });
  const d = await cli(['--root', bad, 'status', '--long']);
  assert.equal(d.code, 1, d.out);
  assert.match(d.out, /^status: error\nextended_status: error - done\n/);
  assert.match(d.out, /errors:\n\t- \('m', Error\('m exploded'\)\)/);
  const j = JSON.parse((await cli(['--root', bad, 'status', '--format', 'json'])).out);
  assert.equal(j.status, 'error');
  assert.equal(j.extended_status, 'error - done');
  assert.deepEqual(j['modules-config'].errors, ["('m', Error('m exploded'))"]);
  // `status --wait` ends and still reports the error: Packer's `|| [ $? -eq 2 ]` does not accept it.
  assert.equal((await cli(['--root', bad, 'status', '--wait'])).code, 1);
});

test('status: recoverable errors only (a warning) are degraded, exit 2', async (t) => {
  const warned = await bootedRoot(t, { warn: 'something odd\non two lines' });
  const d = await cli(['--root', warned, 'status', '--long']);
  assert.equal(d.code, 2, d.out);
  assert.match(d.out, /^status: done\nextended_status: degraded done\n/);
  assert.match(d.out, /errors: \[\]\nrecoverable_errors:\nWARNING:\n\t- something odd on two lines\n$/);
  const j = JSON.parse((await cli(['--root', warned, 'status', '--format', 'json'])).out);
  assert.equal(j.status, 'done');
  assert.equal(j.extended_status, 'degraded done');
  assert.deepEqual(j.recoverable_errors, { WARNING: ['something odd\non two lines'] });
  assert.deepEqual(j['modules-config'].recoverable_errors, { WARNING: ['something odd\non two lines'] });
});

test('status --wait polls while not started, then reports the finished boot', async (t) => {
  const root = tempDir(t);
  const waiting = cli(['--root', root, 'status', '--wait']);
  await new Promise((r) => setTimeout(r, 100));
  const src = await bootedRoot(t);
  // status.json lives in /var/lib/cloud/data; /run/cloud-init/status.json links to it (copied last, as at boot).
  spawnSync('cp', ['-a', `${src}/var`, `${root}/`]);
  spawnSync('cp', ['-a', `${src}/run`, `${root}/`]);
  const r = await waiting;
  assert.equal(r.code, 0);
  assert.match(
    r.out,
    /^\.+status: done\n$/,
    'the status follows the dots on their line, as in cloud-init 24.4 and later',
  );
});

test('status --wait --timeout: a boot that does not finish in time is exit 1 with the reason and the status so far; --timeout needs --wait', async (t) => {
  const root = tempDir(t);
  // Nothing ever boots in ROOT: without the limit this would wait for ever (the test's own timeout would end it).
  const r = await cli(['--root', root, 'status', '--wait', '--timeout', '0.3', '--long']);
  assert.equal(r.code, 1);
  assert.equal(r.err, 'status --wait: the boot has not finished after 0.3 s (not started)\n');
  assert.match(r.out, /^\.+\nstatus: not started\n/);
  const json = await cli(['--root', root, 'status', '--wait', '--timeout', '0.2', '--format', 'json']);
  assert.equal(json.code, 1);
  assert.equal(JSON.parse(json.out).status, 'not started');
  assert.equal((await cli(['--root', root, 'status', '--timeout', '5'])).code, 2);
  assert.equal((await cli(['--root', root, 'status', '--wait', '--timeout', 'soon'])).code, 2);
  // A boot that is done in time is reported as without the limit.
  const done = await bootedRoot(t);
  assert.equal((await cli(['--root', done, 'status', '--wait', '--timeout', '30'])).code, 0);
});

test('query: keys, --all, --list-keys, --format, user data for root, errors', async (t) => {
  const root = await bootedRoot(t);
  assert.equal((await cli(['--root', root, 'query', 'v1.instance_id'])).out, 'i-42\n');
  assert.equal((await cli(['--root', root, 'query', 'instance-id'])).out, 'i-42\n');
  assert.equal((await cli(['--root', root, 'query', 'v1.cloud-name'])).out, 'fakecloud\n');
  assert.match((await cli(['--root', root, 'query', '--list-keys'])).out, /^_beta_keys\n(.|\n)*\nv1\n/);
  assert.match(
    (await cli(['--root', root, 'query', '--list-keys', 'v1'])).out,
    /^_beta_keys\navailability-zone\navailability_zone\n/,
  );
  assert.equal(
    (
      await cli([
        '--root',
        root,
        'query',
        '--format',
        'cloud {{ v1.cloud_name }} in {{region}} {% if v1.instance_id %}{{ ds.meta_data.instance_id | upper }}{% endif %}',
      ])
    ).out,
    'cloud fakecloud in r1 I-42\n',
  );
  const undef = await cli(['--root', root, 'query', '--format', 'x {{ nope }}']);
  assert.equal(undef.code, 0);
  assert.equal(undef.out, 'x CI_MISSING_JINJA_VAR/nope\n');
  assert.equal(undef.err, "WARNING: Could not render jinja template variables in file 'query command line': 'nope'\n");
  assert.equal((await cli(['--root', root, 'query', '--format', '{{ nope.deeper }}'])).code, 1);
  assert.equal((await cli(['--root', root, 'query', '--format', '{% if false %}x{% endif %}'])).code, 1);
  const all = JSON.parse((await cli(['--root', root, 'query', '--all'])).out);
  if (process.getuid?.() === 0) {
    assert.match(all.userdata, /password: s3cretpass/);
    // merged_cfg is the system config (as in 22.4); the user's cloud-config is in combined_cloud_config.
    assert.equal(all.combined_cloud_config.password, 's3cretpass');
  } else assert.equal(all.merged_cfg, 'redacted for non-root user');
  const missing = await cli(['--root', root, 'query', 'v1.nothing']);
  assert.equal(missing.code, 1);
  assert.equal(missing.err, "ERROR: instance-data 'v1' has no 'nothing'\n");
  assert.equal(
    (await cli(['--root', root, 'query', 'nothing.v1'])).err,
    "ERROR: Undefined instance-data key 'nothing.v1'\n",
  );
  const redacted = join(root, 'run/cloud-init/instance-data.json');
  const viaFile = JSON.parse((await cli(['query', '--all', '--instance-data', redacted])).out);
  assert.equal(viaFile.merged_cfg, 'redacted for non-root user');
  if (process.getuid?.() === 0) {
    // A combined config not written yet (before the init stage) is null for root, as 25.1's query prints it.
    rmSync(join(root, 'run/cloud-init/combined-cloud-config.json'));
    assert.equal(JSON.parse((await cli(['--root', root, 'query', '--all'])).out).combined_cloud_config, null);
  }
  assert.equal((await cli(['--root', tempDir(t), 'query', '--all'])).code, 1);
  const none = await cli(['--root', root, 'query']);
  assert.equal(none.code, 1);
  assert.equal(none.err, 'ERROR: Expected one of the options: --all, --format, --list-keys or varname\n');
  assert.match(none.out, /^usage: .* query /);
});

test('cloud-id, features, analyze, collect-logs', async (t) => {
  const root = await bootedRoot(t);
  assert.equal((await cli(['--root', root, 'cloud-id'])).out, 'fakecloud\n');
  assert.equal((await cli(['--root', root, 'cloud-id', '--long'])).out, 'fakecloud\tr1\n');
  const notStarted = await cli(['--root', tempDir(t), 'cloud-id']);
  assert.deepEqual([notStarted.out, notStarted.code], ['not started\n', 3]);
  assert.match((await cli(['features'])).out, /NETPLAN_CONFIG_ROOT_READ_ONLY/);
  const show = await cli(['--root', root, 'analyze', 'show']);
  assert.equal(show.code, 0, show.err);
  assert.match(show.out, /^-- Boot Record 01 --\n.*\n.*\n\nStarting stage: init-local\n/);
  assert.match(show.out, /^\|`->config-m ran successfully .* @\d\d\.\d{5}s \+\d\d\.\d{5}s$/m);
  assert.match((await cli(['--root', root, 'analyze', 'blame'])).out, /s \(modules-config\/config-m\)/);
  const dump = JSON.parse((await cli(['--root', root, 'analyze', 'dump'])).out);
  assert.ok(
    dump.some((e: { name: string; event_type: string }) => e.name === 'modules-final' && e.event_type === 'finish'),
  );
  assert.match((await cli(['--root', root, 'analyze', 'boot'])).out, /Cloud-init ran for: /);
  if (!need(t, hasCommand('tar'), 'tar is not installed')) return;
  const dir = tempDir(t);
  const tarfile = join(dir, 'logs.tgz');
  // cloud-init 25.1's -r (--redact-sensitive) and -v are taken; kiln redacts whatever is given.
  const c = await cli(['--root', root, 'collect-logs', '--tarfile', tarfile, '-r', '-v']);
  assert.equal(c.code, 0, c.err);
  const x = spawnSync('tar', ['-xzf', tarfile, '-C', dir]);
  assert.equal(x.status, 0);
  const top = readdirSync(dir).find((n) => n.startsWith('cloud-init-logs-')) as string;
  const files = spawnSync('find', [join(dir, top)], { encoding: 'utf8' }).stdout;
  assert.match(files, /run\/cloud-init\/instance-data\.json/);
  assert.doesNotMatch(files, /instance-data-sensitive|user-data\.txt/);
  const grep = spawnSync('grep', ['-r', 's3cretpass', join(dir, top)]);
  assert.equal(grep.status, 1, 'the password is nowhere in the tarball');
});

test('clean --logs --machine-id removes state, logs and resets the machine id; seed stays; clean.d runs', async (t) => {
  const root = await bootedRoot(t);
  mkdirSync(join(root, 'usr/lib/systemd'), { recursive: true });
  writeFileSync(join(root, 'usr/lib/systemd/systemd'), '');
  writeFileSync(join(root, 'etc/machine-id'), '0123456789abcdef0123456789abcdef\n');
  mkdirSync(join(root, 'etc/ssh/sshd_config.d'), { recursive: true });
  writeFileSync(join(root, 'etc/ssh/sshd_config.d/50-cloud-init.conf'), 'PasswordAuthentication yes\n');
  writeFileSync(
    join(root, 'etc/fstab'),
    '/dev/sda1 / ext4 defaults 0 1\n/dev/vdb /mnt auto defaults,nofail,comment=cloudconfig 0 2\n',
  );
  writeFileSync(join(root, 'var/log/cloud-init.log'), 'log\n');
  const dry = await cli(['--root', root, '--dry-run', 'clean', '--logs', '--reboot']);
  assert.equal(dry.code, 0, dry.err);
  assert.match(dry.out, /run shutdown -r now/);
  assert.ok(existsSync(join(root, 'var/log/cloud-init.log')), 'a dry run changes nothing');
  // -c is upstream's short form of --configs, which takes several kinds after it (nargs='+').
  const r = await cli(['--root', root, 'clean', '--logs', '-c', 'ssh_config', 'fstab', '--machine-id']);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(readdirSync(join(root, 'var/lib/cloud')), ['seed']);
  // The boot's own state in /run stays, as with cloud-init 25.1's clean.
  assert.ok(existsSync(join(root, 'run/cloud-init/instance-data.json')));
  assert.ok(!existsSync(join(root, 'var/log/cloud-init.log')));
  assert.ok(!existsSync(join(root, 'var/log/cloud-init-output.log')));
  assert.equal(readFileSync(join(root, 'etc/machine-id'), 'utf8'), 'uninitialized\n');
  assert.ok(!existsSync(join(root, 'etc/ssh/sshd_config.d/50-cloud-init.conf')));
  assert.equal(readFileSync(join(root, 'etc/fstab'), 'utf8'), '/dev/sda1 / ext4 defaults 0 1\n');
  assert.equal((await cli(['--root', root, 'status'])).out, 'status: not started\n');
  assert.equal((await cli(['--root', root, 'clean', '--configs', 'bogus'])).code, 2);
  await cli(['--root', root, 'clean', '--seed']);
  assert.deepEqual(readdirSync(join(root, 'var/lib/cloud')), []);
});

test('clean.d scripts run in order and a failing one makes clean exit 1', async (t) => {
  if (
    !need(
      t,
      process.getuid?.() === 0 && hasCommand('unshare'),
      'needs root and unshare to run scripts in the sandbox root',
    )
  )
    return;
  const root = tempDir(t);
  // A root with only /bin/sh and the libraries it loads: enough for run-parts style scripts.
  const libs = spawnSync('ldd', ['/bin/sh'], { encoding: 'utf8' }).stdout.match(/\/[^\s]+/g) ?? [];
  for (const f of ['/bin/sh', ...libs]) spawnSync('cp', ['-L', '--parents', f, root]);
  mkdirSync(join(root, 'etc/cloud/clean.d'), { recursive: true });
  writeFileSync(join(root, 'etc/cloud/clean.d/10-a'), '#!/bin/sh\necho a >> /order\n');
  writeFileSync(join(root, 'etc/cloud/clean.d/20-b'), '#!/bin/sh\necho b >> /order\nexit 3\n');
  writeFileSync(join(root, 'etc/cloud/clean.d/README'), 'not a script\n');
  chmodSync(join(root, 'etc/cloud/clean.d/10-a'), 0o755);
  chmodSync(join(root, 'etc/cloud/clean.d/20-b'), 0o755);
  const r = await cli(['--root', root, 'clean']);
  assert.equal(r.code, 1);
  assert.match(r.err, /20-b exited with code 3/);
  assert.equal(readFileSync(join(root, 'order'), 'utf8'), 'a\nb\n');
});

test('schema -c FILE names key, line and column; --annotate marks lines', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'good.yaml'), '#cloud-config\nruncmd: [ls]\n');
  writeFileSync(join(dir, 'bad.yaml'), '#cloud-config\nruncmd: ls\n');
  const good = await cli(['schema', '-c', join(dir, 'good.yaml')]);
  assert.equal(good.code, 0);
  assert.match(good.out, /^Valid schema /);
  const bad = await cli(['schema', '--config-file', join(dir, 'bad.yaml')]);
  assert.equal(bad.code, 1);
  assert.equal(bad.out, `Invalid user-data ${join(dir, 'bad.yaml')}\n`);
  assert.equal(
    bad.err,
    "Error: Cloud config schema errors: runcmd (line 2, column 1): 'ls' is not of type 'array'\n\nError: Invalid schema: user-data\n\n",
  );
  // --annotate: the document carries the errors; only the closing line is on stderr (cloud-init 25.1).
  const annotated = await cli(['schema', '--config-file', join(dir, 'bad.yaml'), '--annotate']);
  assert.equal(annotated.code, 1);
  assert.match(annotated.out, /runcmd: ls\t\t# E1/);
  assert.equal(annotated.err, 'Error: Invalid schema: user-data\n\n');
  assert.equal((await cli(['schema'])).code, 2);
  // A folder is named as one, a missing file as missing (cloud-init's wording).
  const folder = await cli(['schema', '-c', dir]);
  assert.equal(folder.code, 1);
  assert.match(folder.err, /^Error: Config file .* is a directory, not a file$/m);
  assert.match(
    (await cli(['schema', '-c', join(dir, 'none.yaml')])).err,
    /^Error: Config file .*none\.yaml does not exist$/m,
  );
  const root = await bootedRoot(t);
  const sys = await cli(['--root', root, 'schema', '--system']);
  assert.equal(sys.code, 0, sys.err);
});

test("schema --system checks the processed user data (a MIME archive's cloud-config parts), and the network config when the instance has one, as cloud-init 25.1 lists them", async (t) => {
  const mime = [
    'Content-Type: multipart/mixed; boundary="b"',
    'MIME-Version: 1.0',
    '',
    '--b',
    'Content-Type: text/x-shellscript',
    '',
    '#!/bin/sh',
    'echo hi',
    '--b',
    'Content-Type: text/cloud-config',
    '',
    '#cloud-config',
    'hostnam: typo',
    '--b--',
    '',
  ].join('\n');
  // The real user data processing (the fakes' takes #cloud-config only): cloud-config.txt holds the merged parts.
  const root = await bootedRoot(t, { userData: mime });
  const r = await cli(['--root', root, 'schema', '--system']);
  assert.equal(r.code, 1, `${r.out}${r.err}`);
  assert.equal(r.out, 'Invalid user-data /var/lib/cloud/instance/cloud-config.txt\n');
  assert.match(
    r.err,
    /^Error: Cloud config schema errors: hostnam \(line \d+, column \d+\): Additional properties are not allowed \('hostnam' was unexpected\)\n\nError: Invalid schema: user-data\n\n$/,
  );
  // With a network config of the instance: both listed, numbered, indented.
  writeFileSync(join(root, 'var/lib/cloud/instances/i-42/cloud-config.txt'), '#cloud-config\nhostname: fine\n');
  writeFileSync(
    join(root, 'var/lib/cloud/instances/i-42/network-config.json'),
    JSON.stringify({ version: 2, ethernets: { eth0: { dhcp4: 'maybe' } } }),
  );
  const both = await cli(['--root', root, 'schema', '--system']);
  assert.equal(both.code, 1);
  assert.match(
    both.out,
    /^Found cloud-config data types: user-data, network-config\n\n1\. user-data at \/var\/lib\/cloud\/instance\/cloud-config\.txt:\n {2}Valid schema user-data\n\n2\. network-config at \/var\/lib\/cloud\/instance\/network-config\.json:\n {2}Invalid network-config .*network-config\.json\n$/,
  );
  assert.match(
    both.err,
    /^ {2}Error: Cloud config schema errors: ethernets\.eth0\.dhcp4 \(line 1, column \d+\): 'maybe' is not one of /m,
  );
  assert.match(both.err, /Error: Invalid schema: network-config\n\n$/);
  // No processed user data at all: said, exit 1.
  const none = await cli(['--root', tempDir(t), 'schema', '--system']);
  assert.equal(none.code, 1);
  assert.match(none.err, /^Error: Config file \/var\/lib\/cloud\/instance\/cloud-config\.txt does not exist\n$/);
});

test('schema -t network-config checks v1 and v2 (no #cloud-config header), skips an empty config', async (t) => {
  const dir = tempDir(t);
  writeFileSync(
    join(dir, 'v1.yaml'),
    'network:\n  version: 1\n  config:\n  - type: physical\n    name: eth0\n    subnets: [{type: dhcp}]\n',
  );
  writeFileSync(join(dir, 'v2.yaml'), 'version: 2\nethernets:\n  eth0:\n    dhcp4: maybe\n');
  writeFileSync(join(dir, 'empty.yaml'), 'network: {}\n');
  const v1 = await cli(['schema', '-t', 'network-config', '-c', join(dir, 'v1.yaml')]);
  assert.equal(v1.code, 0, v1.err);
  assert.match(v1.out, /^Valid schema .*v1\.yaml$/m);
  const v2 = await cli(['schema', '--schema-type', 'network-config', '-c', join(dir, 'v2.yaml')]);
  assert.equal(v2.code, 1);
  assert.match(
    v2.err,
    /Error: Cloud config schema errors: ethernets\.eth0\.dhcp4 \(line 4, column 5\): 'maybe' is not one of \['yes', 'no', True, False\]/,
  );
  const empty = await cli(['schema', '-t', 'network-config', '-c', join(dir, 'empty.yaml')]);
  assert.equal(empty.code, 0);
  assert.equal(empty.out, 'Skipping network-config schema validation on empty config.\n');
  assert.equal((await cli(['schema', '-t', 'vendor-data', '-c', join(dir, 'v1.yaml')])).code, 2);
});

test('the cloud-init face: --all-stages is the default command; --help is still the face help', async () => {
  const h = await cli(['--help']);
  assert.equal(h.code, 0);
  assert.match(h.out, /^usage: cloud-init /);
  assert.match(h.out, /\n {2}status /);
  const none = await cli([]);
  assert.equal(none.code, 2);
  const unknown = await cli(['frobnicate']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /unknown command 'frobnicate'/);
});

test('status --format json: datasource is "" before any boot and null while a stage runs before one is found, as cloud-init 25.1 prints them', async (t) => {
  const root = tempDir(t);
  const ds = async () =>
    (JSON.parse((await cli(['--root', root, 'status', '--format', 'json'])).out) as { datasource: unknown }).datasource;
  assert.equal(await ds(), '');
  mkdirSync(join(root, 'run/cloud-init'), { recursive: true });
  writeFileSync(
    join(root, 'run/cloud-init/status.json'),
    JSON.stringify({
      v1: { datasource: null, stage: 'init-local', 'init-local': { start: 1, finished: null, errors: [] } },
    }),
  );
  assert.equal(await ds(), null);
});

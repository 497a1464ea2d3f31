import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { bootcmd } from '../../src/modules/bootcmd';
import { caCerts } from '../../src/modules/ca-certs';
import { renderResolvConf, resolvConf } from '../../src/modules/resolv-conf';
import { remoteLine, rsyslog } from '../../src/modules/rsyslog';
import { seedRandom } from '../../src/modules/seed-random';
import { copyRootfs, ensureDebianRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { moduleContext } from './module-context';

function rootfsOk(t: Parameters<typeof tempDir>[0]): boolean {
  return need(
    t,
    isRoot() && hasCommand('unshare') && hasCommand('debootstrap'),
    'needs root, unshare and debootstrap for the Debian rootfs',
  );
}

test('seed_random appends decoded data and the metadata seed to the seed file, and runs the command', async (t) => {
  if (!rootfsOk(t)) return;
  const root = copyRootfs(tempDir(t, 'kiln-seed-'));
  const ctx = moduleContext(root, { instance: { metadata: { random_seed: 'META' } } });
  writeFileSync(join(root, 'var/seedfile'), 'old:');
  await seedRandom.run(ctx, {
    random_seed: {
      file: '/var/seedfile',
      data: new Uint8Array(gzipSync(Buffer.from('gzdata'))),
      encoding: 'gzip',
      command: ['sh', '-c', 'echo "seeded $RANDOM_SEED_FILE"'],
      command_required: true,
    },
  });
  assert.equal(readFileSync(join(root, 'var/seedfile'), 'utf8'), 'old:gzdataMETA');
  assert.match(ctx.outputText(), /seeded \/var\/seedfile/);
  await seedRandom.run(ctx, {
    random_seed: { file: '/var/seedfile', data: Buffer.from('b64!').toString('base64'), encoding: 'b64' },
  });
  assert.equal(readFileSync(join(root, 'var/seedfile'), 'utf8'), 'old:gzdataMETAb64!META');
  await assert.rejects(
    seedRandom.run(ctx, { random_seed: { file: '/var/x', command: ['no-such-tool'], command_required: true } }),
    /seed_random: random_seed\.command.*no-such-tool/,
  );
  await assert.rejects(
    seedRandom.run(ctx, { random_seed: { file: '/var/x', data: 'x', encoding: 'rot13' } }),
    /Unknown random_seed encoding: rot13/,
  );
  await seedRandom.run(moduleContext(root), {});
});

test("seed_random reads random_seed as 25.1 does: !!binary data as bytes, an encoding lower()'d, an encoding of no data unread", async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'var'), { recursive: true });
  const ctx = moduleContext(root);
  await seedRandom.run(ctx, {
    random_seed: { file: '/var/seedfile', data: new Uint8Array([0xff, 0x00, 0x41]), encoding: 'raw' },
  });
  await seedRandom.run(ctx, {
    random_seed: { file: '/var/seedfile', data: Buffer.from('B64').toString('base64'), encoding: 'BASE64' },
  });
  await seedRandom.run(ctx, {
    random_seed: { file: '/var/seedfile', data: '', encoding: 'rot13', command_required: 'no' },
  });
  assert.deepEqual([...readFileSync(join(root, 'var/seedfile'))], [0xff, 0x00, 0x41, ...Buffer.from('B64')]);
  await assert.rejects(seedRandom.run(ctx, { random_seed: { data: 'x', encoding: 'Rot13' } }), {
    name: 'ModuleError',
    message: 'seed_random: Unknown random_seed encoding: Rot13',
  });
});

test("seed_random adds the bytes of a metadata seed the source read as bytes (IBMCloud's random_seed), not their base64", async (t) => {
  const root = tempDir(t, 'kiln-seed-bytes-');
  mkdirSync(join(root, 'var'), { recursive: true });
  const ctx = moduleContext(root, {
    instance: {
      metadata: { random_seed: Buffer.from([0, 1, 0xfe, 0xff]).toString('base64') },
      base64EncodedKeys: ['ds/meta_data/random_seed'],
    },
  });
  await seedRandom.run(ctx, { random_seed: { file: '/var/seedfile' } });
  assert.deepEqual([...readFileSync(join(root, 'var/seedfile'))], [0, 1, 0xfe, 0xff]);
});

test('bootcmd runs strings and word lists through /bin/sh with INSTANCE_ID, and fails loudly', async (t) => {
  if (!rootfsOk(t)) return;
  const root = copyRootfs(tempDir(t, 'kiln-boot-'));
  const ctx = moduleContext(root);
  await bootcmd.run(ctx, {
    bootcmd: [
      'echo "id=$INSTANCE_ID" > /run/bootcmd.out',
      ['sh', '-c', 'echo "$0" >> /run/bootcmd.out', "it's quoted"],
      null,
    ],
  });
  assert.equal(readFileSync(join(root, 'run/bootcmd.out'), 'utf8'), "id=iid-test-1\nit's quoted\n");
  assert.deepEqual(readdirSync(join(root, 'run/cloud-init/tmp')), [], 'the script is removed');
  await assert.rejects(
    bootcmd.run(ctx, { bootcmd: ['echo oops >&2; exit 3'] }),
    /bootcmd: the bootcmd script exited with code 3: oops/,
  );
  await assert.rejects(bootcmd.run(ctx, { bootcmd: 'echo no' }), {
    name: 'ModuleError',
    message: "bootcmd: Failed to shellify bootcmd: Input to shellify was type 'str'. Expected list or tuple.",
  });
});

test("bootcmd refuses an item util.shellify cannot shellify in shellify's words", async (t) => {
  await assert.rejects(bootcmd.run(moduleContext(tempDir(t)), { bootcmd: ['ls', 5] }), {
    name: 'ModuleError',
    message: "bootcmd: Failed to shellify bootcmd: Unable to shellify type 'int'. Expected list, string, tuple. Got: 5",
  });
});

test("resolv_conf renders exactly what cloud-init's resolv.conf.tmpl renders", async (t) => {
  if (!rootfsOk(t)) return;
  const rootfs = ensureDebianRootfs();
  const cases = [
    {
      nameservers: ['1.1.1.1', '8.8.8.8'],
      searchdomains: ['a.com', 'b.com'],
      domain: 'd.com',
      sortlist: ['10.0.0.0/8', '1.2.3.4'],
      options: { rotate: true, timeout: 1, debug: false },
    },
    { nameservers: ['1.1.1.1'] },
    { domain: 'x' },
    { options: { ndots: 2, 'no-inet6': true } },
    { searchdomains: ['a'], sortlist: ['s'] },
  ];
  const script = [
    'import json, sys',
    'from cloudinit.config.cc_resolv_conf import generate_resolv_conf',
    'out = []',
    'for i, p in enumerate(json.loads(sys.argv[1])):',
    "    generate_resolv_conf('/etc/cloud/templates/resolv.conf.tmpl', p, '/dev/shm/r')",
    "    out.append(open('/dev/shm/r').read())",
    'sys.stdout.write(json.dumps(out))',
  ].join('\n');
  const r = spawnSync(
    'unshare',
    [
      '--net',
      '--uts',
      '--ipc',
      '--mount',
      '--pid',
      '--fork',
      'sh',
      '-c',
      'mount -t tmpfs none "$1/dev/shm" && chroot "$1" python3 -c "$2" "$3"',
      'sh',
      rootfs,
      script,
      JSON.stringify(cases),
    ],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  const expected = JSON.parse(r.stdout) as string[];
  const tpl = readFileSync(join(rootfs, 'etc/cloud/templates/resolv.conf.tmpl'), 'utf8').split('\n');
  const header = tpl.slice(1).filter((_line, i, all) => all.slice(0, i + 1).every((x) => x.startsWith('#')));
  for (const [i, c] of cases.entries()) assert.equal(renderResolvConf(header, c), expected[i], `case ${i}`);

  const root = tempDir(t);
  mkdirSync(join(root, 'etc/cloud/templates'), { recursive: true });
  writeFileSync(join(root, 'etc/cloud/templates/resolv.conf.tmpl'), tpl.join('\n'));
  await resolvConf.run(moduleContext(root), {
    manage_resolv_conf: true,
    resolv_conf: cases[0] as Record<string, unknown>,
  });
  assert.equal(readFileSync(join(root, 'etc/resolv.conf'), 'utf8'), expected[0]);
});

test('resolv_conf without manage_resolv_conf true or parameters leaves the file alone', async (t) => {
  const root = tempDir(t);
  await resolvConf.run(moduleContext(root), { resolv_conf: { nameservers: ['1.1.1.1'] } });
  await resolvConf.run(moduleContext(root), { manage_resolv_conf: false, resolv_conf: { nameservers: ['1.1.1.1'] } });
  await resolvConf.run(moduleContext(root), { manage_resolv_conf: true });
  assert.equal(existsSync(join(root, 'etc/resolv.conf')), false);
  await resolvConf.run(moduleContext(root), { manage_resolv_conf: true, resolv_conf: { nameservers: ['9.9.9.9'] } });
  assert.match(readFileSync(join(root, 'etc/resolv.conf'), 'utf8'), /^nameserver 9\.9\.9\.9$/m);
});

test('ca_certs adds trusted certificates to the Debian store through update-ca-certificates, and remove_defaults deselects the system CAs (25.1)', async (t) => {
  if (!rootfsOk(t) || !need(t, hasCommand('openssl'), 'openssl makes the test certificate')) return;
  const root = copyRootfs(tempDir(t, 'kiln-ca-'));
  const dir = tempDir(t);
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(dir, 'k'),
      '-out',
      join(dir, 'c'),
      '-days',
      '2',
      '-subj',
      '/CN=Kiln Test CA',
    ],
    { encoding: 'utf8' },
  );
  assert.equal(made.status, 0, made.stderr);
  const cert = readFileSync(join(dir, 'c'), 'utf8');
  const ctx = moduleContext(root);
  const conf = readFileSync(join(root, 'etc/ca-certificates.conf'), 'utf8');
  await caCerts.run(ctx, { ca_certs: { trusted: [cert] } });
  // 25.1: each certificate in a file of its own in the local store, which update-ca-certificates always reads.
  assert.equal(readFileSync(join(root, 'usr/local/share/ca-certificates/cloud-init-ca-cert-1.crt'), 'utf8'), cert);
  assert.equal(
    readFileSync(join(root, 'etc/ca-certificates.conf'), 'utf8'),
    conf,
    'the list of system CAs is left alone',
  );
  assert.ok(
    readFileSync(join(root, 'etc/ssl/certs/ca-certificates.crt'), 'utf8').includes(
      cert.trim().split('\n')[1] as string,
    ),
    'the bundle holds the new CA',
  );
  await caCerts.run(ctx, { ca_certs: { remove_defaults: true, trusted: [cert] } });
  const disabled = readFileSync(join(root, 'etc/ca-certificates.conf'), 'utf8').split('\n');
  assert.ok(disabled.includes('# Modified by cloud-init to deselect certs due to user-data'));
  assert.ok(
    disabled.filter((l) => l !== '' && !l.startsWith('#')).every((l) => l.startsWith('!')),
    'every system CA deselected',
  );
  const bundle = readFileSync(join(root, 'etc/ssl/certs/ca-certificates.crt'), 'utf8');
  assert.equal(bundle.match(/BEGIN CERTIFICATE/g)?.length, 1, 'only the trusted CA is left');
});

test('rsyslog writes configs and remotes, appending to a file named twice', async (t) => {
  const root = tempDir(t);
  await rsyslog.run(moduleContext(root), {
    rsyslog: {
      configs: [
        '*.* @@192.0.2.1',
        { filename: 'extra.conf', content: 'a\n' },
        { filename: 'extra.conf', content: 'b' },
        { content: 'local0.* /var/log/l0' },
      ],
      remotes: { maas: '192.0.2.9', juju: '10.0.4.1:514', v6: 'kern.* @@[2001:db8::1]:10514', bad: 'a b c' },
      config_dir: '/etc/rsyslog.d',
    },
  });
  assert.equal(readFileSync(join(root, 'etc/rsyslog.d/extra.conf'), 'utf8'), 'a\nb\n');
  assert.equal(
    readFileSync(join(root, 'etc/rsyslog.d/20-cloud-config.conf'), 'utf8'),
    '*.* @@192.0.2.1\nlocal0.* /var/log/l0\n# begin remotes\n*.* @192.0.2.9 # maas\n*.* @10.0.4.1:514 # juju\nkern.* @@[2001:db8::1]:10514 # v6\n# end remotes\n',
  );
  assert.equal(remoteLine('*.* @@host:1 # cmt', undefined), '*.* @@host:1 # cmt');
});

test('rsyslog install_rsyslog installs the packages when check_exe is missing (newer upstream), and only then', async (t) => {
  const { dryContext } = await import('./late-context');
  const apt =
    'apt-get --option=Dpkg::Options::=--force-confold --option=Dpkg::options::=--force-unsafe-io --assume-yes --quiet';
  const missing = dryContext(tempDir(t));
  await rsyslog.run(missing, { rsyslog: { install_rsyslog: true } });
  assert.deepEqual(missing.commands(), [`${apt} update`, `${apt} install rsyslog`]);
  // reload_syslog's command is run when the target has it (else subp's "No such file" is warned about).
  const customRoot = tempDir(t);
  mkdirSync(join(customRoot, 'usr/bin'), { recursive: true });
  writeFileSync(join(customRoot, 'usr/bin/true'), '', { mode: 0o755 });
  const custom = dryContext(customRoot, { distro: { name: 'fedora', family: 'redhat', version: '40' } });
  await rsyslog.run(custom, {
    rsyslog: {
      install_rsyslog: true,
      packages: ['rsyslog', 'rsyslog-gnutls'],
      check_exe: 'rsyslogd-custom',
      configs: ['*.* @h'],
      service_reload_command: ['true'],
    },
  });
  assert.deepEqual(custom.commands(), ['dnf -t -y install rsyslog rsyslog-gnutls', 'true']);
  const root = tempDir(t);
  mkdirSync(join(root, 'usr/sbin'), { recursive: true });
  writeFileSync(join(root, 'usr/sbin/rsyslogd'), '');
  const present = dryContext(root);
  await rsyslog.run(present, { rsyslog: { install_rsyslog: true } });
  assert.deepEqual(present.commands(), []);
  const off = dryContext(tempDir(t));
  await rsyslog.run(off, { rsyslog: { packages: ['rsyslog'] } });
  assert.deepEqual(off.commands(), []);
});

test('ca_certs runs on the distros 25.1 lists, each with its own store and refresh command', async (t) => {
  const { dryContext } = await import('./late-context');
  const cert = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
  for (const [distro, file, command] of [
    [
      { name: 'opensuse', family: 'suse', version: '15.6' },
      '/usr/share/pki/trust/anchors/cloud-init-ca-cert-1.crt',
      'update-ca-certificates',
    ],
    [
      { name: 'sles', family: 'suse', version: '15.6' },
      '/usr/share/pki/trust/anchors/cloud-init-ca-cert-1.crt',
      'update-ca-certificates',
    ],
    [
      { name: 'fedora', family: 'redhat', version: '41' },
      '/usr/share/pki/ca-trust-source/anchors/cloud-init-ca-cert-1.crt',
      'update-ca-trust',
    ],
    [
      { name: 'almalinux', family: 'redhat', version: '9' },
      '/usr/share/pki/ca-trust-source/anchors/cloud-init-ca-cert-1.crt',
      'update-ca-trust',
    ],
  ] as const) {
    assert.ok((caCerts.distros as string[]).includes(distro.name), distro.name);
    const ctx = dryContext(tempDir(t), { distro: { ...distro } });
    await caCerts.run(ctx, { ca_certs: { trusted: [cert] } });
    const writes = ctx.dry.effects.flatMap((e) => (e.kind === 'write-file' ? [e.path] : []));
    assert.deepEqual(writes, [file], distro.name);
    assert.deepEqual(ctx.commands(), [command], distro.name);
  }
  const photon = dryContext(tempDir(t), { distro: { name: 'photon', family: 'unknown', version: '5' } });
  await caCerts.run(photon, { ca_certs: { trusted: [cert, cert] } });
  assert.deepEqual(
    photon.dry.effects.flatMap((e) => (e.kind === 'write-file' ? [e.path] : [])),
    ['/etc/ssl/certs/cloud-init-ca-cert-1.pem', '/etc/ssl/certs/cloud-init-ca-cert-2.pem'],
  );
  assert.deepEqual(photon.commands(), ['rehash_ca_certificates.sh']);
  // Families upstream does not list stay unverified (the runner skips them unless unverified_modules names the module).
  for (const name of ['arch', 'rocky', 'centos'])
    assert.equal((caCerts.distros as string[]).includes(name), false, name);
});

test("ca_certs' remove_defaults deselects each entry of ca-certificates.conf once, under one header, as 25.1", async () => {
  const { disableEntries } = await import('../../src/modules/ca-certs');
  const once = disableEntries('# comment\nmozilla/A.crt\n!mozilla/B.crt\n\nmozilla/C.crt\n');
  assert.equal(
    once,
    '# comment\n# Modified by cloud-init to deselect certs due to user-data\n!mozilla/A.crt\n!mozilla/B.crt\n\n!mozilla/C.crt\n',
  );
  assert.equal(disableEntries(once), once, 'a second run changes nothing');
});

test("ca_certs' remove_defaults on RHEL fails on a missing store folder, as 25.1's delete_dir_contents", async (t) => {
  const { dryContext } = await import('./late-context');
  const rhel = { name: 'rhel', family: 'redhat', version: '9' } as const;
  const missing = dryContext(tempDir(t), { distro: { ...rhel } });
  await assert.rejects(caCerts.run(missing, { ca_certs: { remove_defaults: true, trusted: ['c'] } }), {
    name: 'ModuleError',
    message: /cannot empty the certificate store \/etc\/pki\/ca-trust\//,
  });
  assert.deepEqual(missing.commands(), []);
  assert.deepEqual(
    missing.dry.effects.filter((e) => e.kind === 'write-file'),
    [],
  );
  // With both folders there, their contents go and the certificate is written and the store refreshed.
  const root = tempDir(t);
  mkdirSync(join(root, 'etc/pki/ca-trust/extracted'), { recursive: true });
  mkdirSync(join(root, 'usr/share/pki/ca-trust-source'), { recursive: true });
  const present = dryContext(root, { distro: { ...rhel } });
  await caCerts.run(present, { ca_certs: { remove_defaults: true, trusted: ['c'] } });
  assert.deepEqual(present.commands(), ['update-ca-trust']);
});

test("resolv_conf writes systemd-resolved's file on Photon, Mariner and Azure Linux, and runs on 25.1's distros", async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc/cloud/templates'), { recursive: true });
  writeFileSync(
    join(root, 'etc/cloud/templates/systemd.resolved.conf.tmpl'),
    '## template:jinja\n# Written from cloud-config.\n#\n[Resolve]\n{% if nameservers is defined %}\n',
  );
  const ctx = moduleContext(root, { distro: { name: 'mariner', family: 'redhat', version: '2.0' } });
  await resolvConf.run(ctx, {
    manage_resolv_conf: true,
    resolv_conf: { nameservers: ['192.0.2.1', '192.0.2.2'], searchdomains: ['a.test'], domain: 'a.test' },
  });
  assert.equal(
    readFileSync(join(root, 'etc/systemd/resolved.conf'), 'utf8'),
    '# Written from cloud-config.\n#\n[Resolve]\nLLMNR=false\nDNS=192.0.2.1 192.0.2.2 \nDomains=a.test \n',
  );
  assert.equal(existsSync(join(root, 'etc/resolv.conf')), false);
  const azure = tempDir(t);
  await resolvConf.run(moduleContext(azure, { distro: { name: 'azurelinux', family: 'redhat', version: '3.0' } }), {
    manage_resolv_conf: true,
    resolv_conf: { nameservers: ['192.0.2.1'] },
  });
  assert.match(
    readFileSync(join(azure, 'etc/systemd/resolved.conf'), 'utf8'),
    /\[Resolve\]\nLLMNR=false\nDNS=192\.0\.2\.1 \n\n$/,
  );
  for (const name of ['openeuler', 'sle_hpc', 'sle-micro', 'azurelinux'])
    assert.ok((resolvConf.distros as string[]).includes(name), name);
});

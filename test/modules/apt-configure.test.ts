// apt_configure on a sandbox root seen through a dry run: templates, mirrors, sources, keys, debconf.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  convertToV3,
  createAptConfigureModule,
  disableSuites,
  packageMirrorInfo,
  type AptDeps,
} from '../../src/modules/apt-configure';
import { dearmorKey } from '../../src/keys/openpgp-armor';
import { ensureDebianRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { dryContext } from './late-context';

/** A small template in the sandbox (kiln reads the target's templates as cloud-init does). */
const TEMPLATE = `## template:jinja
deb {{mirror}} {{codename}} main
deb {{security}} {{codename}}{% if codename in ('buster', 'stretch') %}/updates{% else %}-security{% endif %} main
deb {{mirror}} {{codename}}-backports main
`;

function sandbox(t: Parameters<typeof tempDir>[0], template = TEMPLATE): string {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc/cloud/templates'), { recursive: true });
  writeFileSync(join(root, 'etc/cloud/templates/sources.list.debian.tmpl'), template);
  return root;
}

const noNetwork: AptDeps = {
  fetchKey: async () => {
    throw new Error('tests never reach a keyserver');
  },
  resolvable: async () => false,
};

/** The dry run answers every command with empty output; lsb_release and dpkg need answers, so fake them. */
function withAnswers(ctx: ReturnType<typeof dryContext>): ReturnType<typeof dryContext> {
  const run = ctx.dry.run.bind(ctx.dry);
  ctx.dry.run = async (cmd, opts) => {
    const r = await run(cmd, opts);
    const c = Array.isArray(cmd) ? cmd.join(' ') : cmd;
    if (c === 'lsb_release --all')
      return {
        ...r,
        stdout:
          'Distributor ID:\tDebian\nDescription:\tDebian GNU/Linux 12 (bookworm)\nRelease:\t12\nCodename:\tbookworm\n',
      };
    if (c === 'dpkg --print-architecture') return { ...r, stdout: 'amd64\n' };
    if (c === 'dpkg-query --list') return { ...r, stdout: 'ii  cloud-init 22.4 all x\nii  tzdata 2024 all y\n' };
    return r;
  };
  return ctx;
}

test('sources.list from the target template with primary/security mirrors, disabled suites, proxies and conf', async (t) => {
  const root = sandbox(t);
  const ctx = withAnswers(dryContext(root));
  await createAptConfigureModule(noNetwork).run(ctx, {
    apt: {
      preserve_sources_list: false,
      primary: [{ arches: ['default'], uri: 'http://mirror.test/debian' }],
      security: [{ arches: ['amd64'], uri: 'http://sec.test/debian-security' }],
      disable_suites: ['backports'],
      proxy: 'http://proxy.test:3128',
      https_proxy: 'http://proxy.test:3129',
      conf: 'APT::Get::Assume-Yes "true";\n',
    },
  });
  const text = (p: string) => readPlanned(ctx, p);
  assert.equal(
    await text('/etc/apt/sources.list'),
    'deb http://mirror.test/debian bookworm main\ndeb http://sec.test/debian-security bookworm-security main\n# suite disabled by cloud-init: deb http://mirror.test/debian bookworm-backports main\n',
  );
  assert.equal(
    await text('/etc/apt/apt.conf.d/90cloud-init-aptproxy'),
    'Acquire::http::Proxy "http://proxy.test:3128";\nAcquire::https::Proxy "http://proxy.test:3129";\n',
  );
  assert.equal(await text('/etc/apt/apt.conf.d/94cloud-init-config'), 'APT::Get::Assume-Yes "true";\n');
});

async function readPlanned(ctx: ReturnType<typeof dryContext>, path: string): Promise<string> {
  return ctx.dry.readText(path);
}

test('mirrors from system_info.package_mirrors: region and availability zone placeholders, first resolvable wins', async (t) => {
  const resolvableHosts = new Set(['us-east-1.ec2.archive.test', 'eu-zone-a.mirror.test']);
  const deps: AptDeps = { ...noNetwork, resolvable: async (u) => resolvableHosts.has(new URL(u).hostname) };
  const cfg = {
    system_info: {
      package_mirrors: [
        {
          arches: ['default'],
          failsafe: {
            primary: 'http://deb.failsafe.test/debian',
            security: 'http://deb.failsafe.test/debian-security',
          },
          search: {
            primary: [
              'http://%(ec2_region)s.ec2.archive.test/debian',
              'http://%(availability_zone)s.mirror.test/debian',
            ],
            security: ['http://%(region)s.security.test/debian'],
          },
        },
      ],
    },
  };
  const ec2 = await packageMirrorInfo(
    cfg,
    'amd64',
    {
      instanceId: 'i',
      cloudName: 'aws',
      platform: 'ec2',
      subplatform: '',
      publicKeys: [],
      metadata: {},
      availabilityZone: 'us-east-1b',
      region: 'us-east-1',
    },
    deps,
  );
  assert.deepEqual(ec2, {
    primary: 'http://us-east-1.ec2.archive.test/debian',
    security: 'http://deb.failsafe.test/debian-security',
  });
  // ec2_region is only offered on EC2; elsewhere the availability-zone template is tried.
  const other = await packageMirrorInfo(
    cfg,
    'amd64',
    {
      instanceId: 'i',
      cloudName: 'openstack',
      platform: 'openstack',
      subplatform: '',
      publicKeys: [],
      metadata: {},
      availabilityZone: 'eu-zone-a',
    },
    deps,
  );
  assert.equal(other.primary, 'http://eu-zone-a.mirror.test/debian');
  const root = sandbox(t);
  const ctx = withAnswers(dryContext(root, { instance: { availabilityZone: 'eu-zone-a' } }));
  await createAptConfigureModule(deps).run(ctx, { ...cfg, apt: { preserve_sources_list: false } });
  assert.match(
    await readPlanned(ctx, '/etc/apt/sources.list'),
    /^deb http:\/\/eu-zone-a\.mirror\.test\/debian bookworm main\ndeb http:\/\/deb\.failsafe\.test\/debian-security bookworm-security main/,
  );
});

test('sources: $MIRROR/$RELEASE rendered, .list added, append unless append: false, add-apt-repository for ppa:, apt-get update', async (t) => {
  const root = sandbox(t);
  mkdirSync(join(root, 'etc/apt/sources.list.d'), { recursive: true });
  writeFileSync(join(root, 'etc/apt/sources.list.d/old.list'), 'deb http://old.test/ x main\n');
  // add-apt-repository is there: nothing to install first (the next test has it missing).
  mkdirSync(join(root, 'usr/bin'), { recursive: true });
  writeFileSync(join(root, 'usr/bin/add-apt-repository'), '#!/bin/sh\n', { mode: 0o755 });
  const ctx = withAnswers(dryContext(root));
  await createAptConfigureModule(noNetwork).run(ctx, {
    apt: {
      preserve_sources_list: true,
      primary: [{ arches: ['default'], uri: 'http://m.test/debian' }],
      sources: {
        'extra.list': { source: 'deb $MIRROR $RELEASE contrib' },
        old: { source: 'deb http://new.test/ $RELEASE main' },
        fresh: { source: 'deb http://fresh.test/ $RELEASE main', append: false, filename: '/etc/apt/custom' },
        ppa: { source: 'ppa:someone/thing' },
      },
    },
  });
  assert.equal(
    await readPlanned(ctx, '/etc/apt/sources.list.d/extra.list'),
    'deb http://m.test/debian bookworm contrib\n',
  );
  assert.equal(
    await readPlanned(ctx, '/etc/apt/sources.list.d/old.list'),
    'deb http://old.test/ x main\ndeb http://new.test/ bookworm main\n',
  );
  assert.equal(await readPlanned(ctx, '/etc/apt/custom.list'), 'deb http://fresh.test/ bookworm main\n');
  assert.ok(!(await ctx.dry.exists('/etc/apt/sources.list')), 'preserve_sources_list keeps sources.list');
  const cmds = ctx.commands();
  assert.ok(cmds.includes('add-apt-repository --no-update ppa:someone/thing'));
  assert.match(cmds.at(-1) ?? '', /^apt-get .* update$/);
  // 25.1 forces this refresh: it takes no update_sources semaphore, so a later package install still refreshes.
  assert.ok(!(await ctx.dry.exists('/var/lib/cloud/instances/iid-test-1/sem/update_sources')));
});

test('keys: armored keys are dearmored into trusted.gpg.d, $KEY_FILE ones into cloud-init.gpg.d; keyid uses the injected fetcher', async (t) => {
  if (!need(t, hasCommand('gpg'), 'needs gpg to make a test key and check the dearmoring')) return;
  const home = tempDir(t, 'kiln-gpg-');
  const gpg = (args: string[], input?: string) =>
    spawnSync('gpg', ['--homedir', home, '--batch', '--pinentry-mode', 'loopback', '--passphrase', '', ...args], {
      input,
    });
  gpg(['--quick-gen-key', 'kiln test <kiln@test.invalid>', 'ed25519', 'sign', 'never']);
  const armored = gpg(['--armor', '--export', 'kiln@test.invalid']).stdout.toString();
  assert.match(armored, /BEGIN PGP PUBLIC KEY BLOCK/);
  const expected = gpg(['--dearmor'], armored).stdout;
  assert.deepEqual(Buffer.from(dearmorKey(armored, 'apt_configure', 'test')), expected);

  const root = sandbox(t);
  const fetched: string[] = [];
  const deps: AptDeps = {
    ...noNetwork,
    fetchKey: async (id, server) => {
      fetched.push(`${id}@${server}`);
      return armored;
    },
  };
  const ctx = withAnswers(dryContext(root));
  await createAptConfigureModule(deps).run(ctx, {
    apt: {
      preserve_sources_list: true,
      sources: {
        signed: { source: 'deb [signed-by=$KEY_FILE] http://s.test/ $RELEASE main', key: armored },
        byid: { keyid: 'ABCDEF0123456789', keyserver: 'keys.test' },
      },
    },
  });
  assert.deepEqual(Buffer.from(await ctx.dry.readFile('/etc/apt/cloud-init.gpg.d/signed.gpg')), expected);
  assert.equal(
    await readPlanned(ctx, '/etc/apt/sources.list.d/signed.list'),
    'deb [signed-by=/etc/apt/cloud-init.gpg.d/signed.gpg] http://s.test/ bookworm main\n',
  );
  assert.deepEqual(Buffer.from(await ctx.dry.readFile('/etc/apt/trusted.gpg.d/byid.gpg')), expected);
  assert.deepEqual(fetched, ['ABCDEF0123456789@keys.test']);
  assert.throws(
    () => dearmorKey('not a key', 'apt_configure', 'sources.x'),
    /sources\.x: the key is not an ASCII-armored OpenPGP key block/,
  );
});

test('debconf selections go to debconf-set-selections; preseeding cloud-init reconfigures it', async (t) => {
  const root = sandbox(t);
  mkdirSync(join(root, 'etc/cloud/cloud.cfg.d'), { recursive: true });
  writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/90_dpkg.cfg'), 'datasource_list: [NoCloud]\n');
  const ctx = withAnswers(dryContext(root));
  await createAptConfigureModule(noNetwork).run(ctx, {
    apt: {
      preserve_sources_list: true,
      debconf_selections: {
        b: 'cloud-init cloud-init/datasources multiselect NoCloud',
        a: 'tzdata tzdata/Areas select Etc',
      },
    },
  });
  const cmds = ctx.commands();
  assert.equal(cmds[0], 'debconf-set-selections');
  assert.ok(cmds.includes('dpkg-reconfigure --frontend=noninteractive cloud-init'));
  assert.ok(!(await ctx.dry.exists('/etc/cloud/cloud.cfg.d/90_dpkg.cfg')));
  assert.ok(ctx.lines.some((l) => l.includes('cannot be unconfigured: tzdata')));
});

test('a ppa: source on a target without add-apt-repository installs software-properties-common first, as 25.1', async (t) => {
  const sources = { ppa: { source: 'ppa:someone/thing' }, plain: { source: 'deb http://p.test/ $RELEASE main' } };
  const ctx = withAnswers(dryContext(sandbox(t)));
  await createAptConfigureModule(noNetwork).run(ctx, { apt: { preserve_sources_list: true, sources } });
  const cmds = ctx.commands();
  const install = cmds.findIndex((c) => /^apt-get .*install software-properties-common$/.test(c));
  assert.ok(install > 0 && /^apt-get .* update$/.test(cmds[install - 1] ?? ''), cmds.join('\n'));
  assert.ok(install < cmds.indexOf('add-apt-repository --no-update ppa:someone/thing'), cmds.join('\n'));
  // Without such a source nothing is installed (kiln reads keys itself: no gnupg either).
  const plain = withAnswers(dryContext(sandbox(t)));
  await createAptConfigureModule(noNetwork).run(plain, {
    apt: { preserve_sources_list: true, sources: { plain: sources.plain } },
  });
  assert.ok(!plain.commands().some((c) => c.includes(' install ')), plain.commands().join('\n'));
});

test('preserve_sources_list: null keeps sources.list (is_false(None) is false); sources_list: "" renders the template', async (t) => {
  const primary = [{ arches: ['default'], uri: 'http://m.test/debian' }];
  const kept = withAnswers(dryContext(sandbox(t)));
  await createAptConfigureModule(noNetwork).run(kept, { apt: { preserve_sources_list: null, primary } });
  assert.ok(!(await kept.dry.exists('/etc/apt/sources.list')));
  const empty = withAnswers(dryContext(sandbox(t)));
  await createAptConfigureModule(noNetwork).run(empty, { apt: { sources_list: '', primary } });
  assert.match(await readPlanned(empty, '/etc/apt/sources.list'), /^deb http:\/\/m\.test\/debian bookworm main$/m);
});

test("values 25.1's schema rejects and Debian's 25.1 module reads: generate_mirrorlists writes the mirror lists, preserve_sources_list: 'no' writes sources.list", async (t) => {
  const lists = withAnswers(dryContext(sandbox(t)));
  await createAptConfigureModule(noNetwork).run(lists, {
    apt: { generate_mirrorlists: true, primary: [{ arches: ['default'], uri: 'http://m.test/debian' }] },
  });
  assert.equal(await readPlanned(lists, '/etc/apt/mirrors/debian.list'), 'http://m.test/debian\n');
  assert.equal(await readPlanned(lists, '/etc/apt/mirrors/debian-security.list'), 'http://m.test/debian\n');
  assert.ok(!(await lists.dry.exists('/etc/apt/sources.list')));
  const no = withAnswers(dryContext(sandbox(t)));
  await createAptConfigureModule(noNetwork).run(no, {
    apt: { preserve_sources_list: 'no', primary: [{ arches: ['default'], uri: 'http://m.test/debian' }] },
  });
  assert.match(await readPlanned(no, '/etc/apt/sources.list'), /^deb http:\/\/m\.test\/debian bookworm main$/m);
});

test('old apt_* keys convert to the v3 apt: format; disable_suites understands [options] columns', () => {
  const warnings: string[] = [];
  const v3 = convertToV3(
    { apt_mirror: 'http://m.test/', apt_proxy: 'http://p.test', apt_preserve_sources_list: true },
    (m) => warnings.push(m),
  );
  assert.deepEqual(v3.apt, {
    proxy: 'http://p.test',
    preserve_sources_list: true,
    primary: [{ arches: ['default'], uri: 'http://m.test/' }],
  });
  assert.equal(warnings.length, 1);
  assert.equal(
    disableSuites(
      ['updates'],
      'deb [arch=amd64 trusted=yes] http://x bookworm-updates main\ndeb http://x bookworm main\n',
      'bookworm',
    ),
    '# suite disabled by cloud-init: deb [arch=amd64 trusted=yes] http://x bookworm-updates main\ndeb http://x bookworm main\n',
  );
});

test("with Debian's own sources.list template (from the cached rootfs) the output is what cloud-init 22.4 writes", async (t) => {
  if (!need(t, isRoot() && hasCommand('debootstrap'), 'needs root and debootstrap for the cached Debian rootfs'))
    return;
  const tmpl = readFileSync(join(ensureDebianRootfs('trixie'), 'etc/cloud/templates/sources.list.debian.tmpl'), 'utf8');
  const root = sandbox(t, tmpl);
  const ctx = withAnswers(dryContext(root));
  await createAptConfigureModule(noNetwork).run(ctx, {
    apt: { preserve_sources_list: false, primary: [{ arches: ['default'], uri: 'http://m.test/debian' }] },
  });
  const out = await readPlanned(ctx, '/etc/apt/sources.list');
  assert.ok(out.includes('deb http://m.test/debian bookworm main\ndeb-src http://m.test/debian bookworm main\n'));
  assert.ok(out.includes('deb http://m.test/debian bookworm-security main\n'));
  assert.ok(!out.includes('{{') && !out.includes('{%'));
  assert.ok(existsSync(join(root, 'etc/cloud/templates/sources.list.debian.tmpl')));
});

test('deb822: a deb822 template goes to sources.list.d/<distro>.sources, disabled suites as 25.1 redacts them, the old sources.list removed, deb822 sources get .sources', async (t) => {
  const deb822 = `## template:jinja
Types: deb
URIs: {{mirror}}
Suites: {{codename}} {{codename}}-updates {{codename}}-backports
Components: main

Types: deb
URIs: {{security}}
Suites: {{codename}}-security
Components: main
`;
  const root = sandbox(t);
  writeFileSync(join(root, 'etc/cloud/templates/sources.list.debian.deb822.tmpl'), deb822);
  mkdirSync(join(root, 'etc/apt'), { recursive: true });
  writeFileSync(join(root, 'etc/apt/sources.list'), 'deb http://old.test/ bookworm main\n');
  const ctx = withAnswers(dryContext(root));
  await createAptConfigureModule(noNetwork).run(ctx, {
    apt: {
      preserve_sources_list: false,
      primary: [{ arches: ['default'], uri: 'http://m.test/debian' }],
      security: [{ arches: ['default'], uri: 'http://s.test/debian-security' }],
      disable_suites: ['backports', 'security'],
      sources: { extra: { source: 'Types: deb\nURIs: http://x.test/\nSuites: $RELEASE\nComponents: main' } },
    },
  });
  assert.equal(
    await readPlanned(ctx, '/etc/apt/sources.list.d/debian.sources'),
    // cloud-init 25.1.4's disable_suites on the same text, byte for byte (run in the trixie rootfs).
    'Types: deb\nURIs: http://m.test/debian\n# cloud-init disable_suites redacted: Suites: bookworm bookworm-updates bookworm-backports\nSuites: bookworm bookworm-updates\nComponents: main\n\n\n## Entry disabled by cloud-init, due to disable_suites\n# disabled by cloud-init: Types: deb\n# disabled by cloud-init: URIs: http://s.test/debian-security\n# disabled by cloud-init: Suites: bookworm-security\n# disabled by cloud-init: Components: main\n',
  );
  assert.equal(
    await ctx.platform.exists('/etc/apt/sources.list'),
    false,
    'outside Ubuntu, 25.1 removes the one-line sources.list',
  );
  assert.equal(
    await readPlanned(ctx, '/etc/apt/sources.list.d/extra.sources'),
    'Types: deb\nURIs: http://x.test/\nSuites: bookworm\nComponents: main\n',
  );
});

test("the release codename comes from the target's os-release; lsb_release and dpkg are not started", async (t) => {
  const root = sandbox(t);
  writeFileSync(join(root, 'etc/os-release'), 'ID=debian\nVERSION_ID="13"\nVERSION_CODENAME=trixie\n');
  mkdirSync(join(root, 'usr/bin'), { recursive: true });
  writeFileSync(join(root, 'usr/bin/dpkg'), readFileSync('/proc/self/exe'));
  const ctx = dryContext(root);
  await createAptConfigureModule(noNetwork).run(ctx, {
    apt: { preserve_sources_list: false, primary: [{ arches: ['default'], uri: 'http://mirror.test/debian' }] },
  });
  assert.match(await readPlanned(ctx, '/etc/apt/sources.list'), /^deb http:\/\/mirror\.test\/debian trixie main$/m);
  const commands = ctx.dry.effects.flatMap((e) => (e.kind === 'run' ? [e.command] : []));
  assert.deepEqual(
    commands.filter((c) => /lsb_release|dpkg/.test(c)),
    [],
  );
});

/**
 * A sandbox without /etc/cloud/templates (kiln installed by `kiln install`, no cloud-init package), release from
 * os-release.
 */
function bareSandbox(
  t: Parameters<typeof tempDir>[0],
  osRelease = 'ID=debian\nVERSION_ID="12"\nVERSION_CODENAME=bookworm\n',
): string {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc'), { recursive: true });
  writeFileSync(join(root, 'etc/os-release'), osRelease);
  return root;
}

const warnings = (ctx: ReturnType<typeof dryContext>) => ctx.lines.filter((l) => /WARN/.test(l));

test("no template in the target: Debian bookworm's sources.list comes from kiln's built-in template, without a warning", async (t) => {
  const root = bareSandbox(t);
  const ctx = withAnswers(dryContext(root));
  await createAptConfigureModule(noNetwork).run(ctx, {
    apt: {
      preserve_sources_list: false,
      primary: [{ arches: ['default'], uri: 'http://m.test/debian' }],
      security: [{ arches: ['default'], uri: 'http://s.test/debian-security' }],
    },
  });
  const entries = (await readPlanned(ctx, '/etc/apt/sources.list')).split('\n').filter((l) => /^deb/.test(l));
  assert.deepEqual(entries, [
    'deb http://m.test/debian bookworm main',
    'deb-src http://m.test/debian bookworm main',
    'deb http://s.test/debian-security bookworm-security main',
    'deb-src http://s.test/debian-security bookworm-security main',
    'deb http://m.test/debian bookworm-updates main',
    'deb-src http://m.test/debian bookworm-updates main',
    'deb http://m.test/debian bookworm-backports main',
    'deb-src http://m.test/debian bookworm-backports main',
  ]);
  assert.deepEqual(warnings(ctx), []);
  assert.deepEqual(ctx.problems, []);
  assert.ok(!existsSync(join(root, 'etc/cloud/templates')), 'the built-in template is not written into the target');
});

test('a template file in the target is used, not the built-in one; a distro kiln has no template for still warns', async (t) => {
  const withFile = sandbox(t);
  const ctx = withAnswers(dryContext(withFile));
  await createAptConfigureModule(noNetwork).run(ctx, {
    apt: { preserve_sources_list: false, primary: [{ arches: ['default'], uri: 'http://m.test/debian' }] },
  });
  assert.match(
    await readPlanned(ctx, '/etc/apt/sources.list'),
    /^deb http:\/\/m\.test\/debian bookworm main\ndeb \S+ bookworm-security main\ndeb http:\/\/m\.test\/debian bookworm-backports main\n$/,
  );

  const unknown = bareSandbox(t, 'ID=raspbian\nID_LIKE=debian\nVERSION_CODENAME=bookworm\n');
  const other = withAnswers(dryContext(unknown, { distro: { name: 'raspbian', family: 'debian', version: '12' } }));
  await createAptConfigureModule(noNetwork).run(other, {
    apt: { preserve_sources_list: false, primary: [{ arches: ['default'], uri: 'http://m.test/raspbian' }] },
  });
  assert.ok(!(await other.dry.exists('/etc/apt/sources.list')));
  assert.ok(
    warnings(other).some((l) => l.includes('No template found, not rendering /etc/apt/sources.list')),
    other.lines.join('\n'),
  );
});

/**
 * The apt entries of a sources.list as a sorted set of (type, uri, suite, component), so groupings and comments do not
 * count.
 */
function aptEntries(text: string): string[] {
  const out = new Set<string>();
  for (const line of text.split('\n')) {
    const m = /^(?:# )?(deb|deb-src)\s+(\S+)\s+(\S+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const enabled = !line.startsWith('#');
    for (const comp of (m[4] ?? '').trim().split(/\s+/))
      out.add(`${enabled ? '' : '#'}${m[1]} ${m[2]} ${m[3]} ${comp}`);
  }
  return [...out].sort();
}

test("kiln's built-in templates render the apt entries cloud-init 22.4's packaged templates do (default and custom mirrors)", async (t) => {
  if (!need(t, isRoot() && hasCommand('debootstrap'), 'needs root and debootstrap for the cached Debian rootfs'))
    return;
  const templates = join(ensureDebianRootfs('trixie'), 'etc/cloud/templates');
  const cases = [
    { name: 'debian', osRelease: 'ID=debian\nVERSION_ID="12"\nVERSION_CODENAME=bookworm\n' },
    { name: 'debian', osRelease: 'ID=debian\nVERSION_ID="11"\nVERSION_CODENAME=bullseye\n' },
    { name: 'debian', osRelease: 'ID=debian\nVERSION_ID="10"\nVERSION_CODENAME=buster\n' },
    { name: 'ubuntu', osRelease: 'ID=ubuntu\nVERSION_ID="24.04"\nVERSION_CODENAME=noble\n' },
  ];
  const configs = [
    { preserve_sources_list: false },
    {
      preserve_sources_list: false,
      primary: [{ arches: ['default'], uri: 'http://m.test/mirror' }],
      security: [{ arches: ['default'], uri: 'http://s.test/security' }],
      disable_suites: ['backports'],
    },
  ];
  for (const { name, osRelease } of cases) {
    for (const apt of configs) {
      const distro = { name, family: 'debian' as const, version: '' };
      const packaged = bareSandbox(t, osRelease);
      mkdirSync(join(packaged, 'etc/cloud/templates'), { recursive: true });
      writeFileSync(
        join(packaged, `etc/cloud/templates/sources.list.${name}.tmpl`),
        readFileSync(join(templates, `sources.list.${name}.tmpl`)),
      );
      const withPackaged = withAnswers(dryContext(packaged, { distro }));
      await createAptConfigureModule(noNetwork).run(withPackaged, { apt });
      const builtin = withAnswers(dryContext(bareSandbox(t, osRelease), { distro }));
      await createAptConfigureModule(noNetwork).run(builtin, { apt });
      const want = aptEntries(await readPlanned(withPackaged, '/etc/apt/sources.list'));
      assert.ok(want.length > 0);
      assert.deepEqual(
        aptEntries(await readPlanned(builtin, '/etc/apt/sources.list')),
        want,
        `${osRelease} ${JSON.stringify(apt)}`,
      );
      assert.deepEqual(warnings(builtin), []);
    }
  }
});

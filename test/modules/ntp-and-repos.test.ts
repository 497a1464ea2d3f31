// ntp, yum_add_repo, zypper_add_repo and apk_configure on sandbox roots.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { apkConfigureModule, renderApkRepositories } from '../../src/modules/apk-configure';
import { clientConfigsFor, defaultPoolNames, ntpModule } from '../../src/modules/ntp';
import { createYumAddRepoModule } from '../../src/modules/yum-add-repo';
import { zypperAddRepoModule } from '../../src/modules/zypper-add-repo';
import { ensureDebianRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { dryContext } from './late-context';
import { moduleContext } from './module-context';
import { putFile } from './root-files';

const CHRONY_TMPL = `## template:jinja
{% for pool in pools %}pool {{pool}} iburst
{% endfor %}
{% for server in servers %}server {{server}} iburst
{% endfor %}
`;

test('ntp on Debian: chrony preferred, rendered from the target template to /etc/chrony/chrony.conf, installed and reloaded', async (t) => {
  const root = tempDir(t);
  putFile(root, '/etc/cloud/templates/chrony.conf.debian.tmpl', CHRONY_TMPL);
  putFile(root, '/etc/chrony/chrony.conf', 'old\n');
  const ctx = dryContext(root);
  await ntpModule.run(ctx, { ntp: { servers: ['192.0.2.1'], pools: ['pool.test'] } });
  // As Jinja2 and cloud-init's templater render it: the loop keeps its last line break, the template's final newline is
  // added back.
  assert.equal(await ctx.dry.readText('/etc/chrony/chrony.conf'), 'pool pool.test iburst\nserver 192.0.2.1 iburst\n\n');
  assert.equal(await ctx.dry.readText('/etc/chrony/chrony.conf.dist'), 'old\n');
  const apt =
    'apt-get --option=Dpkg::Options::=--force-confold --option=Dpkg::options::=--force-unsafe-io --assume-yes --quiet';
  assert.deepEqual(ctx.commands(), [`${apt} update`, `${apt} install chrony`, 'service chrony restart']);
});

test('ntp picks an installed client, uses distro pools by default, and systemd reload-or-restart', async (t) => {
  const root = tempDir(t);
  putFile(root, '/lib/systemd/systemd-timesyncd', '', 0o755);
  mkdirSync(join(root, 'run/systemd/system'), { recursive: true });
  const ctx = dryContext(root);
  await ntpModule.run(ctx, { ntp: {} });
  // No template in the target: kiln writes its own minimal timesyncd drop-in.
  assert.equal(
    await ctx.dry.readText('/etc/systemd/timesyncd.conf.d/cloud-init.conf'),
    `[Time]\nNTP=${defaultPoolNames('debian').join(' ')}\n`,
  );
  assert.deepEqual(ctx.commands(), ['systemctl reload-or-restart systemd-timesyncd']);
  assert.deepEqual(defaultPoolNames('sles'), [
    '0.opensuse.pool.ntp.org',
    '1.opensuse.pool.ntp.org',
    '2.opensuse.pool.ntp.org',
    '3.opensuse.pool.ntp.org',
  ]);
  assert.deepEqual(defaultPoolNames('alpine')[0], '0.pool.ntp.org');
  assert.equal(clientConfigsFor('rhel').chrony?.service_name, 'chronyd');
  assert.equal(clientConfigsFor('debian').chrony?.confpath, '/etc/chrony/chrony.conf');
});

test('ntp: enabled false skips, a non-mapping or bad config is an error naming the key', async (t) => {
  const root = tempDir(t);
  const ctx = dryContext(root);
  await ntpModule.run(ctx, { ntp: { enabled: false } });
  assert.deepEqual(ctx.dry.effects, []);
  await assert.rejects(ntpModule.run(ctx, { ntp: ['x'] }), /not a dictionary/);
  await assert.rejects(
    ntpModule.run(ctx, { ntp: { ntp_client: 'chrony', config: { packages: 'chrony' } } }),
    /Expected a list of required package names for ntp:config:packages/,
  );
  // A custom template and client from config, on RHEL: installs without refreshing first.
  const ctx2 = dryContext(root, { distro: { name: 'rocky', family: 'redhat', version: '9' } });
  await ntpModule.run(ctx2, {
    ntp: {
      servers: ['a.test'],
      config: {
        confpath: '/etc/my-ntp.conf',
        check_exe: 'myntpd',
        packages: ['myntp'],
        service_name: 'myntp',
        template: '## template:jinja\n{% for s in servers %}S {{s}}\n{% endfor %}',
      },
    },
  });
  assert.equal(
    await ctx2.dry.readText('/etc/my-ntp.conf'),
    'S a.test\n',
    'a template without a final newline keeps what its loop body wrote (Jinja2 gives the same)',
  );
  assert.deepEqual(ctx2.commands(), ['dnf -t -y install myntp', 'service myntp restart']);
});

test("ntp with Debian 13's own templates (cloud-init 25.1's) renders chrony's and timesyncd's configs, allow and peers included", async (t) => {
  if (!need(t, isRoot() && hasCommand('debootstrap'), 'needs root and debootstrap for the cached Debian rootfs'))
    return;
  const rootfs = ensureDebianRootfs('trixie');
  const root = tempDir(t);
  for (const name of ['chrony.conf.debian.tmpl', 'timesyncd.conf.tmpl'])
    putFile(root, `/etc/cloud/templates/${name}`, readFileSync(join(rootfs, 'etc/cloud/templates', name), 'utf8'));
  const ctx = dryContext(root);
  // 25.1's chrony template loops over allow and peers: both are always given (empty when not configured).
  await ntpModule.run(ctx, { ntp: { servers: ['192.0.2.5'] } });
  const chrony = await ctx.dry.readText('/etc/chrony/chrony.conf');
  assert.match(chrony, /^server 192\.0\.2\.5 iburst$/m);
  const ctx3 = dryContext(root);
  await ntpModule.run(ctx3, { ntp: { servers: ['192.0.2.5'], peers: ['192.0.2.6'], allow: ['192.0.2.0/24'] } });
  const withPeers = await ctx3.dry.readText('/etc/chrony/chrony.conf');
  assert.match(withPeers, /^peer 192\.0\.2\.6$/m);
  assert.match(withPeers, /^allow 192\.0\.2\.0\/24$/m);
  assert.ok(!chrony.includes('{%') && !chrony.includes('{{'));
  const ctx2 = dryContext(root);
  await ntpModule.run(ctx2, { ntp: { ntp_client: 'systemd-timesyncd', pools: ['p.test'], servers: ['s.test'] } });
  assert.match(await ctx2.dry.readText('/etc/systemd/timesyncd.conf.d/cloud-init.conf'), /^NTP=s\.test p\.test $/m);
});

test('ntp: a client with no packages to install (systemd-timesyncd) runs no package command, as 25.1', async (t) => {
  const root = tempDir(t);
  const ctx = dryContext(root);
  // Not installed, but its package list is empty: 25.1's install_packages([]) refreshes nothing and installs nothing.
  await ntpModule.run(ctx, { ntp: { ntp_client: 'systemd-timesyncd', servers: ['s.test'] } });
  assert.deepEqual(ctx.commands(), ['service systemd-timesyncd restart']);
});

test("ntp: ntp.config's template_name, which 25.1's schema lacks, names the template as 25.1's handle uses it", async (t) => {
  const root = tempDir(t);
  putFile(root, '/etc/cloud/templates/mine.debian.debian.tmpl', CHRONY_TMPL);
  const ctx = dryContext(root);
  await ntpModule.run(ctx, {
    ntp: { ntp_client: 'chrony', servers: ['192.0.2.9'], config: { template_name: 'mine.{distro}.{distro}' } },
  });
  assert.equal(await ctx.dry.readText('/etc/chrony/chrony.conf'), 'server 192.0.2.9 iburst\n\n');
  // A null template_name with no template: 25.1's "Either … required".
  await assert.rejects(
    ntpModule.run(dryContext(tempDir(t)), { ntp: { config: { template_name: null } } }),
    /Either ntp:config:template or ntp:config:template_name values are required/,
  );
});

test("ntp: the per-distro client table and the distros list are 25.1's", () => {
  for (const d of ['rhel', 'almalinux', 'cloudlinux', 'rocky', 'centos'])
    assert.equal(clientConfigsFor(d).chrony?.service_name, 'chronyd', d);
  for (const d of ['sles', 'sle_hpc', 'sle-micro', 'opensuse', 'opensuse-leap', 'opensuse-tumbleweed']) {
    assert.equal(clientConfigsFor(d)['systemd-timesyncd']?.check_exe, '/usr/lib/systemd/systemd-timesyncd', d);
    assert.equal(clientConfigsFor(d).ntp?.service_name, 'ntpd', d);
  }
  for (const d of ['photon', 'azurelinux', 'mariner', 'aosc'])
    assert.equal(clientConfigsFor(d)['systemd-timesyncd']?.confpath, '/etc/systemd/timesyncd.conf', d);
  assert.equal(clientConfigsFor('photon').ntp?.service_name, 'ntpd');
  assert.equal(clientConfigsFor('cos').chrony?.confpath, '/etc/chrony/chrony.conf');
  assert.equal(clientConfigsFor('openmandriva').chrony?.service_name, 'chronyd');
  assert.equal(clientConfigsFor('openmandriva')['systemd-timesyncd']?.check_exe, '/lib/systemd/systemd-timesyncd');
  // A name 25.1 does not list keeps the base table (no prefix match).
  assert.equal(clientConfigsFor('opensuse-other').chrony?.service_name, 'chrony');
  const distros = ntpModule.distros as string[];
  for (const d of ['aosc', 'azurelinux', 'mariner', 'openeuler', 'openmandriva', 'photon', 'sle_hpc', 'sle-micro'])
    assert.ok(distros.includes(d), d);
  assert.ok(!distros.includes('arch'), '25.1 does not run ntp on Arch');
});

test("ntp: the merged client config is checked in supplemental_schema_validation's words", async (t) => {
  const run = (ntp: unknown) => ntpModule.run(dryContext(tempDir(t)), { ntp });
  await assert.rejects(run({ ntp_client: 'chrony', config: { confpath: '' } }), (err: unknown) => {
    assert.equal(
      (err as Error).message,
      'ntp: Invalid ntp configuration:\\nExpected a config file path ntp:config:confpath. Found ()',
    );
    return true;
  });
  // An unknown client gives {}: the missing keys and the values' types are reported together, each value as str().
  await assert.rejects(
    run({ ntp_client: 'nope', config: { packages: 'x', service_name: ['a', 1], confpath: null } }),
    (err: unknown) => {
      assert.equal(
        (err as Error).message,
        [
          'ntp: Invalid ntp configuration:\\nMissing required ntp:config keys: check_exe',
          'Expected a config file path ntp:config:confpath. Found (None)',
          'Expected a list of required package names for ntp:config:packages. Found (x)',
          "Expected a string type for ntp:config:service_name. Found (['a', 1])",
        ].join('\n'),
      );
      return true;
    },
  );
});

test('yum_add_repo writes one .repo per entry, skipping existing files and entries without baseurl, metalink or mirrorlist', async (t) => {
  const root = tempDir(t);
  putFile(root, '/etc/yum.repos.d/exists.repo', 'keep');
  const mod = createYumAddRepoModule(() => new Date(Date.UTC(2026, 0, 2, 3, 4, 5)));
  const ctx = moduleContext(root, { distro: { name: 'rocky', family: 'redhat', version: '9' } });
  await mod.run(ctx, {
    yum_repos: {
      'epel testing': {
        baseurl: 'http://epel.test/$basearch',
        enabled: false,
        gpgcheck: true,
        'gpg-key': ['k1', 'k2'],
        name: 'EPEL',
      },
      exists: { baseurl: 'http://x' },
      nobase: { name: 'n' },
      fedora: { metalink: 'https://mirrors.test/metalink?repo=fedora-$releasever' },
    },
  });
  assert.equal(
    readFileSync(join(root, 'etc/yum.repos.d/epel-testing.repo'), 'utf8'),
    '# Created by cloud-init on Fri, 02 Jan 2026 03:04:05 +0000\n[epel-testing]\nbaseurl = http://epel.test/$basearch\nenabled = 0\ngpgcheck = 1\ngpg_key = k1\n\tk2\nname = EPEL\n\n',
  );
  assert.equal(readFileSync(join(root, 'etc/yum.repos.d/exists.repo'), 'utf8'), 'keep');
  // 25.1 takes a metalink or a mirrorlist as well as a baseurl, and skips a repository with none of them.
  assert.ok(
    ctx.lines.some((l) =>
      l.includes(
        'Repository nobase should contain atleast one of the following configuration entries: baseurl, metalink, mirrorlist, skipping!',
      ),
    ),
  );
  assert.match(readFileSync(join(root, 'etc/yum.repos.d/fedora.repo'), 'utf8'), /^metalink = https:\/\/mirrors/m);
});

test("yum_add_repo writes what 25.1's schema rejects as 25.1's module does: an odd repo id, enabled: maybe, a float, null", async (t) => {
  const root = tempDir(t);
  const mod = createYumAddRepoModule(() => new Date(Date.UTC(2026, 0, 2, 3, 4, 5)));
  const ctx = moduleContext(root, { distro: { name: 'rocky', family: 'redhat', version: '9' } });
  await mod.run(ctx, {
    yum_repo_dir: '/etc/yum.repos.d',
    yum_repos: { 'my~repo': { baseurl: 'http://x.test/', enabled: 'maybe', Priority: 1.5, cost: null } },
  });
  assert.equal(
    readFileSync(join(root, 'etc/yum.repos.d/my~repo.repo'), 'utf8'),
    '# Created by cloud-init on Fri, 02 Jan 2026 03:04:05 +0000\n[my~repo]\nbaseurl = http://x.test/\nenabled = maybe\npriority = 1.5\ncost = None\n\n',
  );
});

test('zypper_add_repo writes repos with enabled/autorefresh defaults and appends zypp.conf settings', async (t) => {
  const root = tempDir(t);
  putFile(root, '/etc/zypp/zypp.conf', '[main]\n');
  const ctx = moduleContext(root, { distro: { name: 'sles', family: 'suse', version: '15' } });
  await zypperAddRepoModule.run(ctx, {
    zypper: {
      repos: [{ id: 'my repo', baseurl: 'http://zyp.test/repo', name: 'Mine' }, { baseurl: 'http://no-id' }],
      config: { 'download.deltarpm': 'false', configdir: '/elsewhere', empty: '' },
    },
  });
  assert.equal(
    readFileSync(join(root, 'etc/zypp/repos.d/my_repo.repo'), 'utf8'),
    '[my repo]\nbaseurl = http://zyp.test/repo\nname = Mine\nenabled = 1\nautorefresh = 1',
  );
  assert.equal(
    readFileSync(join(root, 'etc/zypp/zypp.conf'), 'utf8'),
    '[main]\n# Added via cloud.cfg\ndownload.deltarpm=false',
  );
  assert.ok(ctx.lines.some((l) => l.includes('missing required config keys: id')));
});

test('zypper_add_repo skips repos without id or baseurl but still writes zypp.conf, and fails naming a key the schema rejects', async (t) => {
  const root = tempDir(t);
  putFile(root, '/etc/zypp/zypp.conf', '[main]\n');
  const ctx = moduleContext(root, { distro: { name: 'sles', family: 'suse', version: '15' } });
  // No repo left to write: zypp.conf is written all the same, as _write_zypp_config runs first; a baseurl is its text.
  await zypperAddRepoModule.run(ctx, { zypper: { repos: ['not a repo'], config: { 'solver.onlyRequires': 'true' } } });
  assert.equal(
    readFileSync(join(root, 'etc/zypp/zypp.conf'), 'utf8'),
    '[main]\n# Added via cloud.cfg\nsolver.onlyRequires=true',
  );
  assert.ok(ctx.lines.some((l) => l.includes('Repo config at index 0 is missing required config keys: id,baseurl')));
  await zypperAddRepoModule.run(ctx, { zypper: { repos: [{ id: 'n', baseurl: 8080 }] } });
  assert.equal(
    readFileSync(join(root, 'etc/zypp/repos.d/n.repo'), 'utf8'),
    '[n]\nbaseurl = 8080\nenabled = 1\nautorefresh = 1',
  );
  // An id that is not a string (upstream's _canonicalize_id fails on it) and a config that is not a mapping.
  await assert.rejects(zypperAddRepoModule.run(ctx, { zypper: { repos: [{ id: 7, baseurl: 'http://x' }] } }), {
    name: 'ModuleError',
    message: "zypper_add_repo: Invalid cloud-config: zypper.repos.0.id: 7 is not of type 'string'",
  });
  await assert.rejects(zypperAddRepoModule.run(ctx, { zypper: { repos: [{ id: 'm', baseurl: 'u' }], config: 'x' } }), {
    name: 'ModuleError',
    message: "zypper_add_repo: Invalid cloud-config: zypper.config: 'x' is not of type 'object'",
  });
  assert.ok(!existsSync(join(root, 'etc/zypp/repos.d/7.repo')));
});

test('apk_configure writes /etc/apk/repositories from alpine_repo and skips without a version', async (t) => {
  const root = tempDir(t);
  const ctx = moduleContext(root, { distro: { name: 'alpine', family: 'alpine', version: '3.19' } });
  await apkConfigureModule.run(ctx, {
    apk_repos: {
      alpine_repo: {
        base_url: 'https://apk.test/alpine',
        version: 'v3.19',
        community_enabled: true,
        testing_enabled: true,
      },
      local_repo_base_url: 'https://local.test',
    },
  });
  const lines = readFileSync(join(root, 'etc/apk/repositories'), 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'));
  assert.deepEqual(lines, [
    'https://apk.test/alpine/v3.19/main',
    'https://apk.test/alpine/v3.19/community',
    'https://apk.test/alpine/edge/testing',
    'https://local.test/v3.19',
  ]);
  const root2 = tempDir(t);
  await apkConfigureModule.run(moduleContext(root2), { apk_repos: { alpine_repo: { base_url: 'x' } } });
  await apkConfigureModule.run(moduleContext(root2), {
    apk_repos: { preserve_repositories: true, alpine_repo: { version: 'edge' } },
  });
  assert.throws(() => readFileSync(join(root2, 'etc/apk/repositories')));
  assert.ok(
    !renderApkRepositories({ baseUrl: 'b', version: 'edge', community: false, testing: true, localRepo: '' }).includes(
      'Non-Edge',
    ),
  );
});

test("apk_configure's repositories file is 25.1's template text, ending in a blank line", () => {
  const header = ['#', '# Created by cloud-init', '#', '# This file is written on first boot of an instance', '#', ''];
  assert.equal(
    renderApkRepositories({ baseUrl: 'B', version: '3.20', community: false, testing: false, localRepo: '' }),
    [...header, 'B/3.20/main', '', ''].join('\n'),
  );
  assert.equal(
    renderApkRepositories({ baseUrl: 'B', version: '3.20', community: true, testing: true, localRepo: 'L' }),
    [
      ...header,
      'B/3.20/main',
      'B/3.20/community',
      '#',
      '# Testing - using with non-Edge installation may cause problems!',
      '#',
      'B/edge/testing',
      '',
      '#',
      '# Local repo',
      '#',
      'L/3.20',
      '',
      '',
    ].join('\n'),
  );
});

test('apk_configure prints base_url and local_repo_base_url as its template does (str()), a number included', async (t) => {
  const root = tempDir(t);
  const ctx = moduleContext(root, { distro: { name: 'alpine', family: 'alpine', version: '3.19' } });
  await apkConfigureModule.run(ctx, {
    apk_repos: { alpine_repo: { base_url: 'https://apk.test/alpine', version: 3.2 }, local_repo_base_url: 8080 },
  });
  const lines = readFileSync(join(root, 'etc/apk/repositories'), 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'));
  assert.deepEqual(lines, ['https://apk.test/alpine/3.2/main', '8080/3.2']);
});

test("zypper_add_repo quotes as ConfigObj's _quote does: a list in ''' quotes, an inner quote left bare", async (t) => {
  const root = tempDir(t);
  const ctx = moduleContext(root, { distro: { name: 'sles', family: 'suse', version: '15' } });
  await zypperAddRepoModule.run(ctx, {
    zypper: {
      repos: [
        {
          id: 'my,id',
          baseurl: 'http://x',
          name: "It's repo",
          enabled: true,
          a: 'x,y',
          b: ' lead',
          c: '',
          gpgkey: ['u1', 'u2'],
          e: 'has#hash',
          f: '"q',
          g: 2,
          h: 'both \' and "',
        },
      ],
    },
  });
  assert.equal(
    readFileSync(join(root, 'etc/zypp/repos.d/my,id.repo'), 'utf8'),
    [
      '["my,id"]',
      'baseurl = http://x',
      "name = It's repo",
      'enabled = 1',
      'a = "x,y"',
      'b = " lead"',
      'c = ""',
      "gpgkey = '''u1\n    u2'''",
      'e = "has#hash"',
      "f = '\"q'",
      'g = 2',
      "h = '''both ' and \"'''",
      'autorefresh = 1',
    ].join('\n'),
  );
});

test("zypper_add_repo appends zypp.conf values as Python's str() prints them", async (t) => {
  const root = tempDir(t);
  putFile(root, '/etc/zypp/zypp.conf', '[main]\n');
  const ctx = moduleContext(root, { distro: { name: 'sles', family: 'suse', version: '15' } });
  await zypperAddRepoModule.run(ctx, {
    zypper: { repos: [{ id: 'r', baseurl: 'http://x' }], config: { 'solver.onlyRequires': true, n: 3, l: [] } },
  });
  assert.equal(
    readFileSync(join(root, 'etc/zypp/zypp.conf'), 'utf8'),
    '[main]\n# Added via cloud.cfg\nsolver.onlyRequires=True\nn=3',
  );
});

// puppet, chef, salt_minion, mcollective and ansible on sandbox roots: files byte-for-byte as cloud-init 22.4 writes
// them, commands as it runs them.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { validateCloudConfig } from '../../src/config/validate-cloud-config';
import { ansibleModule, pullArgv } from '../../src/modules/ansible';
import { chefModule } from '../../src/modules/chef';
import { mcollectiveModule } from '../../src/modules/mcollective';
import { puppetModule } from '../../src/modules/puppet';
import { saltMinionModule } from '../../src/modules/salt-minion';
import { ensureDebianRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { putFile } from './root-files';
import { scriptedModule } from './scripted-module-platform';

const APT =
  'apt-get --option=Dpkg::Options::=--force-confold --option=Dpkg::options::=--force-unsafe-io --assume-yes --quiet';

const PUPPET_PATHS = {
  'puppet config print config': { stdout: '/etc/puppet/puppet.conf\n' },
  'puppet config print ssldir': { stdout: '/var/lib/puppet/ssl\n' },
  'puppet config print csr_attributes': { stdout: '/etc/puppet/csr_attributes.yaml\n' },
};

test('puppet: installs the first package apt knows, merges conf into puppet.conf as configparser writes it, csr_attributes as yaml.dump, enables, runs and starts', async (t) => {
  // apt knows no puppet-agent here: 25.1 passes it over for puppet.
  const { root, ctx, commands, text, dry } = scriptedModule(t, {
    ...PUPPET_PATHS,
    'apt-cache pkgnames': { stdout: 'puppet\npuppet-common\n' },
  });
  putFile(
    root,
    '/etc/puppet/puppet.conf',
    '[main]\n  logdir = /var/log/puppet\n# comment\n[agent]\nserver=old\nRunInterval: 5\n',
  );
  mkdirSync(join(root, 'run/systemd/system'), { recursive: true });
  putFile(root, '/usr/bin/systemctl', '', 0o755);
  await puppetModule.run(ctx, {
    puppet: {
      version: '7.1',
      exec: true,
      exec_args: ['--onetime', '--no-daemonize'],
      conf: { agent: { server: 'puppetserver.example.org', certname: '%i.EXAMPLE' }, user: { Verbose: true } },
      csr_attributes: {
        custom_attributes: { '1.2.840.113549.1.9.7': 'secret' },
        extension_requests: { pp_uuid: 'ED80', pp_image_name: 'my_ami', pp_list: ['a', { b: 1, c: 2 }] },
      },
    },
  });
  // From Python's configparser through cloud-init's DefaultingConfigParser.stringify on the same input.
  assert.equal(
    await text('/etc/puppet/puppet.conf'),
    '[main]\nlogdir = /var/log/puppet\n\n[agent]\nserver = puppetserver.example.org\nruninterval = 5\ncertname = iid-test-1.example\n\n[user]\nverbose = True\n\n',
  );
  // As cloud-init, the rename to .old happens once per section: .old holds the file after the first section.
  assert.equal(
    await text('/etc/puppet/puppet.conf.old'),
    '[main]\nlogdir = /var/log/puppet\n\n[agent]\nserver = puppetserver.example.org\nruninterval = 5\ncertname = iid-test-1.example\n\n',
  );
  assert.equal(
    await text('/etc/puppet/csr_attributes.yaml'),
    'custom_attributes:\n  1.2.840.113549.1.9.7: secret\nextension_requests:\n  pp_image_name: my_ami\n  pp_list:\n  - a\n  - b: 1\n    c: 2\n  pp_uuid: ED80\n',
  );
  assert.deepEqual(commands(), [
    `${APT} update`,
    'apt-cache pkgnames',
    `${APT} install puppet=7.1`,
    'puppet config print config',
    'puppet config print ssldir',
    'puppet config print csr_attributes',
    'systemctl enable puppet-agent.service',
    'puppet agent --onetime --no-daemonize',
    'systemctl start puppet-agent.service',
  ]);
  assert.ok(
    dry.effects.some((e) => e.kind === 'write-file' && e.path === '/etc/puppet/puppet.conf' && e.mode === 0o644),
  );
});

test('puppet: aio paths and user, install false, /etc/default/puppet left alone (25.1); the ca_cert goes under ssl_dir', async (t) => {
  const { root, ctx, commands, text, dry } = scriptedModule(t, {
    '/opt/puppetlabs/bin/puppet config print config': { stdout: '/etc/puppetlabs/puppet/puppet.conf\n' },
    '/opt/puppetlabs/bin/puppet config print ssldir': { stdout: '/etc/puppetlabs/puppet/ssl\n' },
    '/opt/puppetlabs/bin/puppet config print csr_attributes': {
      stdout: '/etc/puppetlabs/puppet/csr_attributes.yaml\n',
    },
  });
  putFile(root, '/etc/default/puppet', 'START=no\n');
  putFile(root, '/etc/puppetlabs/puppet/puppet.conf', '');
  await puppetModule.run(ctx, { puppet: { install: false, install_type: 'aio', conf: { ca_cert: 'PEM\n' } } });
  assert.equal(await text('/etc/puppetlabs/puppet/ssl/certs/ca.pem'), 'PEM\n');
  assert.ok(
    dry.effects.some(
      (e) =>
        e.kind === 'mkdir' && e.path === '/etc/puppetlabs/puppet/ssl' && e.mode === 0o771 && e.owner === 'root:root',
    ),
  );
  assert.equal(await text('/etc/puppetlabs/puppet/puppet.conf'), '');
  assert.deepEqual(commands(), [
    '/opt/puppetlabs/bin/puppet config print config',
    '/opt/puppetlabs/bin/puppet config print ssldir',
    '/opt/puppetlabs/bin/puppet config print csr_attributes',
    // Without systemd, 25.1's manage_service enables a service by starting it.
    'service puppet-agent.service start',
    'service puppet-agent.service start',
  ]);
  assert.equal(await text('/etc/default/puppet'), 'START=no\n');
});

test('puppet: a service manager that takes neither puppet-agent nor puppet is a warning, not a failure; no installable package either (25.1)', async (t) => {
  const { ctx, commands } = scriptedModule(t, {
    ...PUPPET_PATHS,
    'apt-cache pkgnames': { stdout: 'bash\n' },
    'service puppet-agent.service start': { code: 1 },
    'service puppet.service start': { code: 1 },
  });
  await puppetModule.run(ctx, { puppet: {} });
  assert.deepEqual(
    commands().filter((c) => c.startsWith('service') || c.includes('install')),
    [
      'service puppet-agent.service start',
      'service puppet.service start',
      'service puppet-agent.service start',
      'service puppet.service start',
    ],
  );
  assert.deepEqual(ctx.problems, [
    'WARNING: No installable puppet package in any of: puppet-agent, puppet',
    "WARNING: Could not 'enable' any of the following services: puppet-agent, puppet",
    "WARNING: Could not 'start' any of the following services: puppet-agent, puppet",
  ]);
});

test('puppet: no puppet to ask for its paths fails the module, naming the command; a missing puppet.conf too', async (t) => {
  const a = scriptedModule(t, { puppet: { code: 127, stderr: 'puppet: not found' } });
  await assert.rejects(
    puppetModule.run(a.ctx, { puppet: { install: false, conf_file: '/x.conf' } }),
    /puppet: 'puppet config print config' exited with code 127/,
  );
  const b = scriptedModule(t, PUPPET_PATHS);
  await assert.rejects(
    puppetModule.run(b.ctx, { puppet: { install: false, conf: { main: { a: 1 } } } }),
    /cannot read \/etc\/puppet\/puppet.conf/,
  );
  // On RHEL the version joins with '-', no index refresh runs first, and puppet-agent is installed outright (25.1's
  // RHEL distro installs through dnf, which has no 'unavailable' answer to pass over).
  const c = scriptedModule(t, PUPPET_PATHS, { name: 'rocky', family: 'redhat', version: '9' });
  await puppetModule.run(c.ctx, { puppet: { version: '7', start_service: false } });
  assert.deepEqual(c.commands().slice(0, 1), ['dnf -t -y install puppet-agent-7']);
});

test('puppet: settings 25.1 takes beyond its schema (another conf section, a numeric version); a section that is no mapping fails the module after the sections before it, exec_args of another type is warned about', async (t) => {
  const { root, ctx, commands, text } = scriptedModule(t, PUPPET_PATHS);
  putFile(root, '/etc/puppet/puppet.conf', '[main]\nlogdir = /var/log/puppet\n');
  await assert.rejects(
    puppetModule.run(ctx, {
      puppet: {
        install: 'no',
        start_service: false,
        exec: 'yes',
        exec_args: 5,
        conf: { master: { storeconfigs: 1 }, agent: 'x' },
      },
    }),
    { name: 'ModuleError', message: 'puppet: puppet.conf.agent must be a mapping of settings' },
  );
  assert.equal(
    await text('/etc/puppet/puppet.conf'),
    '[main]\nlogdir = /var/log/puppet\n\n[master]\nstoreconfigs = 1\n\n',
  );
  // Nothing ran after the refused section: no service, no agent.
  assert.equal(commands().length, 3);
  const b = scriptedModule(t, PUPPET_PATHS);
  await puppetModule.run(b.ctx, { puppet: { package_name: 'puppet', version: 7, start_service: false } });
  assert.deepEqual(b.commands(), [
    `${APT} update`,
    `${APT} install puppet=7`,
    'puppet config print config',
    'puppet config print ssldir',
    'puppet config print csr_attributes',
  ]);
  const c = scriptedModule(t, PUPPET_PATHS);
  await puppetModule.run(c.ctx, { puppet: { install: false, exec: true, exec_args: 5, start_service: false } });
  assert.ok(c.ctx.problems.some((p) => p.includes("Unknown type provided for puppet 'exec_args'")));
  assert.equal(c.commands().at(-1), 'puppet agent --test');
});

test("chef: folders, validation key, client.rb from Debian 13's cloud-init template and firstboot.json, then the package install", async (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('debootstrap'),
      "needs root and debootstrap for the cached Debian rootfs (cloud-init's chef_client.rb template)",
    )
  )
    return;
  const { root, ctx, commands, text, dry } = scriptedModule(t);
  putFile(
    root,
    '/etc/cloud/templates/chef_client.rb.tmpl',
    readFileSync(join(ensureDebianRootfs('trixie'), 'etc/cloud/templates/chef_client.rb.tmpl'), 'utf8'),
  );
  await chefModule.run(ctx, {
    chef: {
      server_url: 'https://chef.test:443',
      validation_name: 'yourorg-validator',
      validation_cert: 'KEY',
      environment: 'production',
      chef_license: 'accept',
      show_time: false,
      unknown: 1,
      run_list: ['recipe[apache2]', 'role[db]'],
      initial_attributes: { apache: { prefork: { maxclients: 100 }, keepalive: 'off', naïve: true, f: 1.5 } },
    },
  });
  const dirs = dry.effects.flatMap((e) => (e.kind === 'mkdir' ? [e.path] : []));
  // 25.1's folders: the cache and backups under /var/chef.
  assert.deepEqual(dirs.slice(0, 7), [
    '/etc/chef',
    '/var/log/chef',
    '/var/lib/chef',
    '/var/chef/cache',
    '/var/chef/backup',
    '/var/run/chef',
    '/etc/chef',
  ]);
  assert.equal(await text('/etc/chef/validation.pem'), 'KEY');
  // Rendered as cloud-init's own templater renders the same template and config (its header line aside).
  const rb = await text('/etc/chef/client.rb');
  assert.match(rb, /^# Created by cloud-init v\. [0-9.]+ on .+\n/);
  assert.equal(
    rb.replace(/^.*\n/, ''),
    'chef_license           "accept"\nlog_level              :info\nssl_verify_mode        :verify_none\nlog_location           "/var/log/chef/client.log"\nvalidation_client_name "yourorg-validator"\nvalidation_key         "/etc/chef/validation.pem"\nclient_key             "/etc/chef/client.pem"\nchef_server_url        "https://chef.test:443"\nenvironment            "production"\nnode_name              "iid-test-1"\njson_attribs           "/etc/chef/firstboot.json"\nfile_cache_path        "/var/chef/cache"\nfile_backup_path       "/var/chef/backup"\npid_file               "/var/run/chef/client.pid"\n\n',
  );
  assert.equal(
    await text('/etc/chef/firstboot.json'),
    '{"run_list": ["recipe[apache2]", "role[db]"], "apache": {"prefork": {"maxclients": 100}, "keepalive": "off", "na\\u00efve": true, "f": 1.5}}',
  );
  assert.deepEqual(commands(), [`${APT} update`, `${APT} install chef`]);
  // config_path says where client.rb goes (get_cfg_option_str's default is /etc/chef/client.rb).
  const other = scriptedModule(t);
  putFile(
    other.root,
    '/etc/cloud/templates/chef_client.rb.tmpl',
    '## template:jinja\nchef_server_url "{{server_url}}"\n',
  );
  await chefModule.run(other.ctx, {
    chef: { server_url: 'https://chef.test', validation_name: 'v', config_path: '/etc/chef/other.rb' },
  });
  assert.match(await other.text('/etc/chef/other.rb'), /chef_server_url "https:\/\/chef\.test"/);
});

test('chef moves what an older cloud-init left in /var/cache/chef and /var/backups/chef into /var/chef, keeping what is there (25.1)', async (t) => {
  const { root, ctx, commands } = scriptedModule(t);
  putFile(root, '/var/cache/chef/cookbooks.tgz', 'old');
  putFile(root, '/var/backups/chef/client.rb.bak', 'old');
  putFile(root, '/var/chef/backup/client.rb.bak', 'new');
  await chefModule.run(ctx, { chef: { install_type: 'none' } });
  assert.deepEqual(
    commands().filter((c) => c.startsWith('mv ')),
    ['mv /var/cache/chef/cookbooks.tgz /var/chef/cache'],
  );
  assert.ok(
    ctx.lines.some((l) =>
      l.includes('Ignoring migration of /var/backups/chef/client.rb.bak. File already exists in /var/chef/backup.'),
    ),
  );
});

test('chef: validation_cert system keeps the key (a warning when absent), an installed chef-client runs with exec, the pem deleted after', async (t) => {
  const { root, ctx, commands, dry } = scriptedModule(t);
  putFile(root, '/usr/bin/chef-client', '', 0o755);
  putFile(root, '/etc/chef/validation.pem', 'OLD');
  await chefModule.run(ctx, {
    chef: {
      validation_cert: 'system',
      exec: true,
      exec_arguments: '--once',
      delete_validation_post_exec: true,
      firstboot_path: '',
    },
  });
  assert.ok(
    !dry.effects.some((e) => e.kind === 'write-file'),
    'no template: no client.rb; empty firstboot_path: no json; system: the key is kept',
  );
  assert.deepEqual(commands(), ['/usr/bin/chef-client --once']);
  assert.ok(dry.effects.some((e) => e.kind === 'remove' && e.path === '/etc/chef/validation.pem'));
  assert.ok(ctx.problems.some((p) => p.includes('No template found, not rendering to /etc/chef/client.rb')));
  const b = scriptedModule(t);
  await chefModule.run(b.ctx, {
    chef: { validation_cert: 'system', validation_key: '/etc/chef/my.pem', install_type: 'nope' },
  });
  assert.ok(b.ctx.problems.some((p) => p.includes("validation_key path '/etc/chef/my.pem' does not exist")));
  assert.ok(b.ctx.problems.some((p) => p.includes("Unknown chef install type 'nope'")));
  assert.deepEqual(b.commands(), []);
});

test('chef: settings 25.1 reads beyond its schema, and the values it refuses only where it uses them, after the work before', async (t) => {
  const { root, ctx, commands, text } = scriptedModule(t);
  putFile(root, '/usr/bin/chef-client', '', 0o755);
  await chefModule.run(ctx, { chef: { exec: 'yes', exec_arguments: 5, run_list: 'recipe[x]', other: 1 } });
  assert.deepEqual(commands(), ['/usr/bin/chef-client -d -i 1800 -s 20']);
  assert.ok(ctx.problems.some((p) => p.includes("Unknown type provided for chef 'exec_arguments'")));
  assert.equal(await text('/etc/chef/firstboot.json'), '{"run_list": "recipe[x]"}');
  const b = scriptedModule(t);
  await assert.rejects(chefModule.run(b.ctx, { chef: { validation_cert: 'K', initial_attributes: ['a'] } }), {
    name: 'ModuleError',
    message: 'chef: chef.initial_attributes must be a mapping',
  });
  assert.equal(await b.text('/etc/chef/validation.pem'), 'K');
  const c = scriptedModule(t);
  await assert.rejects(
    chefModule.run(c.ctx, { chef: { install_type: 'omnibus', omnibus_url_retries: 'many', firstboot_path: '/fb' } }),
    { name: 'ModuleError', message: 'chef: chef.omnibus_url_retries must be an integer, not "many"' },
  );
  assert.equal(await c.text('/fb'), '{}');
});

test('chef: omnibus downloads the installer; with no network the module fails naming the URL, after the files were written', async (t) => {
  const { ctx } = scriptedModule(t);
  await assert.rejects(
    chefModule.run(ctx, {
      chef: { install_type: 'omnibus', omnibus_url: 'http://127.0.0.1:9/install.sh', omnibus_url_retries: 0 },
    }),
    /chef: could not download http:\/\/127\.0\.0\.1:9\/install\.sh/,
  );
});

test('salt_minion: package, minion and grains as safeyaml.dumps, keys into pki_dir (0700 folder), service enabled and restarted', async (t) => {
  const { ctx, commands, text, dry } = scriptedModule(t);
  await saltMinionModule.run(ctx, {
    salt_minion: {
      conf: { master: 'salt.test', mine_functions: { 'network.ip_addrs': ['eth0'] }, x: [{ a: 1, b: 2 }] },
      grains: { role: 'web', tags: ['a', 'b'] },
      public_key: 'PUB',
      private_key: 'PRIV',
    },
  });
  assert.equal(
    await text('/etc/salt/minion'),
    '---\nmaster: salt.test\nmine_functions:\n    network.ip_addrs:\n    - eth0\nx:\n-   a: 1\n    b: 2\n...\n',
  );
  assert.equal(await text('/etc/salt/grains'), '---\nrole: web\ntags:\n- a\n- b\n...\n');
  assert.equal(await text('/etc/salt/pki/minion.pub'), 'PUB');
  assert.equal(await text('/etc/salt/pki/minion.pem'), 'PRIV');
  assert.ok(dry.effects.some((e) => e.kind === 'mkdir' && e.path === '/etc/salt/pki' && e.mode === 0o700));
  // 25.1: manage_service enable, then restart (no systemd in the sandbox: `service` start, then restart).
  assert.deepEqual(commands(), [
    `${APT} update`,
    `${APT} install salt-minion`,
    'service salt-minion start',
    'service salt-minion restart',
  ]);
  const b = scriptedModule(t);
  await saltMinionModule.run(b.ctx, {
    salt_minion: {
      pkg_name: 'salt',
      service_name: 'salt-m',
      config_dir: '/srv/salt',
      pki_dir: '/srv/keys/m',
      public_key: 'P',
      private_key: 'Q',
    },
  });
  assert.equal(await b.text('/srv/keys/m/minion.pem'), 'Q');
  assert.deepEqual(b.commands().slice(1), [`${APT} install salt`, 'service salt-m start', 'service salt-m restart']);
  const c = scriptedModule(t, { [`${APT} install salt-minion`]: { code: 100 } });
  await assert.rejects(
    saltMinionModule.run(c.ctx, { salt_minion: { conf: { a: 1 } } }),
    /salt_minion: .*install salt-minion' exited with code 100/,
  );
  assert.ok(
    !c.dry.effects.some((e) => e.kind === 'write-file' && e.path === '/etc/salt/minion'),
    'nothing is written when the install fails',
  );
  // conf.file_client 'local': the service is disabled and stopped, then `salt-call --local state.apply` runs.
  const local = scriptedModule(t);
  await saltMinionModule.run(local.ctx, { salt_minion: { conf: { file_client: 'local' } } });
  assert.deepEqual(local.commands().slice(2), [
    'service salt-minion stop',
    'service salt-minion stop',
    'salt-call --local state.apply',
  ]);
  const failing = scriptedModule(t, { 'salt-call': { code: 1 } });
  await assert.rejects(
    saltMinionModule.run(failing.ctx, { salt_minion: { conf: { file_client: 'local' } } }),
    /salt_minion: 'salt-call --local state\.apply' exited with code 1/,
  );
  // A failing service command fails the module (ProcessExecutionError in 25.1).
  const svc = scriptedModule(t, { 'service salt-minion restart': { code: 1 } });
  await assert.rejects(saltMinionModule.run(svc.ctx, { salt_minion: {} }), /service salt-minion restart failed/);
});

test('mcollective: conf merged into server.cfg as ConfigObj writes it (comments and other lines kept), certs, restart', async (t) => {
  const { root, ctx, commands, text, dry } = scriptedModule(t);
  const old =
    '# mcollective server config\n\nmain_collective = mcollective\ncollectives = mcollective\nlibdir = /usr/share/mcollective/plugins # plugins\nloglevel = info\n\n# connector\nconnector = activemq\n[extra]\nk = 1\n';
  putFile(root, '/etc/mcollective/server.cfg', old);
  await mcollectiveModule.run(ctx, {
    mcollective: {
      conf: {
        loglevel: 'debug',
        daemonize: 1,
        identity: 'node one, two',
        'public-cert': 'PUBCERT',
        'private-cert': 'PRIVCERT',
        registration: { interval: 300 },
        extra: { z: 'q' },
      },
    },
  });
  // Written by configobj 5.0.8 from the same file and the same assignments.
  assert.equal(
    await text('/etc/mcollective/server.cfg'),
    '# mcollective server config\n\nmain_collective = mcollective\ncollectives = mcollective\nlibdir = /usr/share/mcollective/plugins# plugins\nloglevel = debug\n\n# connector\nconnector = activemq\ndaemonize = 1\nidentity = "node one, two"\nplugin.ssl_server_public = /etc/mcollective/ssl/server-public.pem\nsecurityprovider = ssl\nplugin.ssl_server_private = /etc/mcollective/ssl/server-private.pem\n[extra]\nk = 1\nz = q\n[registration]\ninterval = 300\n',
  );
  assert.equal(await text('/etc/mcollective/server.cfg.old'), old);
  assert.equal(await text('/etc/mcollective/ssl/server-private.pem'), 'PRIVCERT');
  assert.ok(
    dry.effects.some(
      (e) => e.kind === 'write-file' && e.path === '/etc/mcollective/ssl/server-private.pem' && e.mode === 0o600,
    ),
  );
  assert.deepEqual(commands(), [`${APT} update`, `${APT} install mcollective`, 'service mcollective restart']);
  const b = scriptedModule(t);
  await mcollectiveModule.run(b.ctx, { mcollective: { conf: { a: 'b' } } });
  assert.equal(await b.text('/etc/mcollective/server.cfg'), 'a = b\n');
});

test('ansible distro: installs when missing, galaxy actions, the exact ansible-pull argv, controller clones and playbooks', async (t) => {
  const { root, ctx, dry } = scriptedModule(t, {
    'ansible-pull --version': { stdout: 'ansible-pull [core 2.14.3]\n  config file = None\n' },
    'ansible-pull': { stdout: 'PLAY RECAP\n' },
  });
  putFile(root, '/usr/bin/ansible', '', 0o755);
  await ansibleModule.run(ctx, {
    ansible: {
      install_method: 'distro',
      package_name: 'ansible-core',
      ansible_config: '/etc/ansible/my.cfg',
      galaxy: { actions: [['ansible-galaxy', 'collection', 'install', 'community.grafana']] },
      pull: {
        url: 'https://github.com/holmanb/vmboot.git',
        playbook_name: 'ubuntu.yml',
        accept_host_key: true,
        clean: false,
        checkout: 'main',
        full: true,
        timeout: 30,
      },
      setup_controller: {
        repositories: [{ path: '/root/playbooks', source: 'https://example.invalid/p.git' }],
        run_ansible: [
          { playbook_dir: '/root/playbooks', playbook_name: 'site.yml', list_hosts: true, forks: 5, check: false },
        ],
      },
    },
  });
  assert.deepEqual(
    dry.calls.map((c) => c.command),
    [
      'ansible-galaxy collection install community.grafana',
      'ansible-pull --version',
      'ansible-pull --url=https://github.com/holmanb/vmboot.git --accept-host-key --checkout=main --full --timeout=30 ubuntu.yml',
      'git clone https://example.invalid/p.git /root/playbooks',
      'ansible-playbook site.yml --list-hosts=True --forks=5',
    ],
  );
  assert.equal(dry.calls[4]?.cwd, '/root/playbooks');
  assert.equal(dry.calls[0]?.env?.ansible_config, '/etc/ansible/my.cfg');
  assert.equal(dry.calls[0]?.env?.HOME, process.env.HOME ?? '/root');
  assert.equal(ctx.outputText(), 'PLAY RECAP\n');
  assert.deepEqual(pullArgv({ url: 'u', playbook_name: 'p.yml', diff: true, private_key: '/k' }), [
    'ansible-pull',
    '--url=u',
    '--diff',
    '--private-key=/k',
    'p.yml',
  ]);
});

test('ansible: pull keys 25.1 passes beyond its schema are options too; a galaxy action or controller entry it cannot use fails the module after the ones before it ran', async (t) => {
  const { root, ctx, dry } = scriptedModule(t, {
    'ansible-pull --version': { stdout: 'ansible-pull [core 2.14.3]\n' },
  });
  putFile(root, '/usr/bin/ansible', '', 0o755);
  const base = { install_method: 'distro', package_name: 'ansible' };
  await ansibleModule.run(ctx, {
    ansible: {
      ...base,
      pull: { url: 'u', playbook_name: 'p.yml', purge: true, extra_vars: 'a=1', only_if_changed: false },
    },
  });
  assert.deepEqual(
    dry.calls.map((c) => c.command),
    ['ansible-pull --version', 'ansible-pull --url=u --purge --extra-vars=a=1 p.yml'],
  );
  const b = scriptedModule(t);
  putFile(b.root, '/usr/bin/ansible', '', 0o755);
  await assert.rejects(
    ansibleModule.run(b.ctx, { ansible: { ...base, galaxy: { actions: [['ansible-galaxy', 'list'], 'x'] } } }),
    { name: 'ModuleError', message: 'ansible: ansible.galaxy.actions: each action is a command list, not "x"' },
  );
  assert.deepEqual(b.commands(), ['ansible-galaxy list']);
  const c = scriptedModule(t);
  putFile(c.root, '/usr/bin/ansible', '', 0o755);
  await assert.rejects(
    ansibleModule.run(c.ctx, {
      ansible: { ...base, setup_controller: { repositories: [{ source: 's', path: '/p' }, { source: 's' }] } },
    }),
    /each entry needs source and path/,
  );
  assert.deepEqual(c.commands(), ['git clone s /p']);
});

test('ansible distro with run_user: the package is found as root, the ansible commands run as the user (25.1)', async (t) => {
  const { root, ctx, dry } = scriptedModule(t, {
    'su - ansible -c env PATH=$PATH ansible-pull --version': { stdout: 'ansible-pull [core 2.14.3]\n' },
  });
  putFile(root, '/usr/bin/ansible', '', 0o755);
  await ansibleModule.run(ctx, {
    ansible: {
      install_method: 'distro',
      package_name: 'ansible',
      run_user: 'ansible',
      pull: { url: 'u', playbook_name: 'p.yml' },
    },
  });
  assert.deepEqual(
    dry.calls.map((c) => c.command),
    [
      'su - ansible -c env PATH=$PATH ansible-pull --version',
      'su - ansible -c env PATH=$PATH ansible-pull --url=u p.yml',
    ],
  );
});

test('ansible pip as run_user: su - user -c with PATH, --user, --break-system-packages from pip 23.0.1; a missing ansible fails', async (t) => {
  let listed = 0;
  const { ctx, dry } = scriptedModule(t, {
    'su - ansible -c env PATH=$PATH /usr/bin/python3 -m pip --version': {
      stdout: 'pip 23.0.1 from /usr/lib/python3/dist-packages/pip (python 3.11)\n',
    },
  });
  const run = dry.run.bind(dry);
  dry.run = async (cmd, opts) => {
    const r = await run(cmd, opts);
    if (Array.isArray(cmd) && cmd.join(' ').endsWith('-m pip list'))
      return { ...r, stdout: listed++ === 0 ? 'pip 23\n' : 'ansible 7.0\n' };
    return r;
  };
  await ansibleModule.run(ctx, { ansible: { install_method: 'pip', package_name: 'ansible', run_user: 'ansible' } });
  const su = (c: string) => `su - ansible -c env PATH=$PATH ${c}`;
  assert.deepEqual(
    dry.calls.map((c) => c.command),
    [
      su("/usr/bin/python3 -c 'import site; print(site.getuserbase())'"),
      su('/usr/bin/python3 -m pip list'),
      '/usr/bin/python3 -c import pip',
      su('/usr/bin/python3 -m pip --version'),
      su('/usr/bin/python3 -m pip install --break-system-packages --user --upgrade pip'),
      su('/usr/bin/python3 -m pip install --break-system-packages --user ansible'),
      su('/usr/bin/python3 -m pip list'),
    ],
  );
  const b = scriptedModule(t);
  await assert.rejects(
    ansibleModule.run(b.ctx, { ansible: { install_method: 'distro', package_name: 'ansible' } }),
    /command: ansible is not installed/,
  );
  assert.deepEqual(b.commands(), [`${APT} update`, `${APT} install ansible`]);
  await assert.rejects(
    ansibleModule.run(b.ctx, { ansible: { install_method: 'pip' } }),
    /Missing required key 'package_name'/,
  );
  await assert.rejects(
    ansibleModule.run(b.ctx, { ansible: { install_method: 'apt', package_name: 'a' } }),
    /Invalid install method apt/,
  );
  await assert.rejects(
    ansibleModule.run(b.ctx, { ansible: { install_method: 'distro', package_name: 'a', pull: { url: 'u' } } }),
    /Missing required key 'pull\/playbook_name'/,
  );
});

test('schema: a bad key of each module is named with its line; the other keys are still checked', () => {
  const doc = [
    '#cloud-config',
    'puppet:',
    '  install_type: rpm',
    'chef:',
    '  run_list: recipe',
    'salt_minion:',
    '  master: x',
    'mcollective:',
    '  conf:',
    '    loglevel: [a]',
    'ansible:',
    '  install_method: distro',
    '  pull:',
    '    url: u',
    '    playbook_name: p',
    '    clean: maybe',
    'runcmd: [ls]',
    '',
  ].join('\n');
  const found = validateCloudConfig(doc).problems.map((p) => `${p.line} ${p.path}`);
  // Sorted by path, as cloud-init 25.1 lists them; an unknown key is named by its mapping (jsonschema's path), a
  // value no alternative of a oneOf takes once per alternative.
  assert.deepEqual(found, [
    '16 ansible.pull.clean',
    '5 chef.run_list',
    '10 mcollective.conf.loglevel',
    '10 mcollective.conf.loglevel',
    '10 mcollective.conf.loglevel',
    '3 puppet.install_type',
    '6 salt_minion',
  ]);
});

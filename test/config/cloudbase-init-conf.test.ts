// cloudbase-init.conf by oslo.config's INI rules: sections, lists, booleans, defaults, unknown options.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadCloudbaseConf } from '../../src/config/cloudbase-init-conf';
import { parseIni } from '../../src/config/ini-file';
import { ConfigError } from '../../src/util/errors';

const CONF = `# a comment
[DEFAULT]
username = kilnadmin
groups=Administrators, Remote Desktop Users
inject_user_password: no
allow_reboot=False
retry_count = 7
metadata_services=cloudbaseinit.metadata.services.configdrive.ConfigDriveService,
  cloudbaseinit.metadata.services.ec2service.EC2Service
; another comment
local_scripts_path=C:\\Scripts\\
something_new = 1

[config_drive]
types = iso
[openstack]
metadata_base_url = http://127.0.0.1:8080/
`;

test('reads [DEFAULT] and sections with oslo.config types', () => {
  const conf = loadCloudbaseConf([{ path: 'cloudbase-init.conf', text: CONF }]);
  assert.equal(conf.str('username'), 'kilnadmin');
  assert.deepEqual(conf.list('groups'), ['Administrators', 'Remote Desktop Users']);
  assert.equal(conf.bool('inject_user_password'), false);
  assert.equal(conf.bool('allow_reboot'), false);
  assert.equal(conf.int('retry_count'), 7);
  assert.deepEqual(conf.list('metadata_services'), [
    'cloudbaseinit.metadata.services.configdrive.ConfigDriveService',
    'cloudbaseinit.metadata.services.ec2service.EC2Service',
  ]);
  assert.equal(conf.str('local_scripts_path'), 'C:\\Scripts\\');
  assert.deepEqual(conf.list('types', 'config_drive'), ['iso']);
  assert.equal(conf.str('metadata_base_url', 'openstack'), 'http://127.0.0.1:8080/');
  assert.equal(conf.isSet('metadata_base_url', 'openstack'), true);
  assert.equal(conf.isSet('metadata_base_url', 'ec2'), false);
});

test('falls back to cloudbase-init defaults', () => {
  const conf = loadCloudbaseConf([{ path: 'c.conf', text: '[DEFAULT]\n' }]);
  assert.equal(conf.str('username'), 'Admin');
  assert.deepEqual(conf.list('groups'), ['Administrators']);
  assert.equal(conf.bool('allow_reboot'), true);
  assert.equal(conf.bool('netbios_host_name_compatibility'), true);
  assert.equal(conf.str('first_logon_behaviour'), 'clear_text_injected_only');
  assert.equal(conf.int('user_password_length'), 20);
  // cloudbase-init's conf/default.py, in its order: the services tried when metadata_services is not set.
  assert.deepEqual(conf.list('metadata_services'), [
    'cloudbaseinit.metadata.services.httpservice.HttpService',
    'cloudbaseinit.metadata.services.configdrive.ConfigDriveService',
    'cloudbaseinit.metadata.services.ec2service.EC2Service',
    'cloudbaseinit.metadata.services.maasservice.MaaSHttpService',
    'cloudbaseinit.metadata.services.cloudstack.CloudStack',
    'cloudbaseinit.metadata.services.opennebulaservice.OpenNebulaService',
  ]);
  assert.equal(conf.str('local_scripts_path'), undefined);
});

test('later files override earlier ones key by key', () => {
  const conf = loadCloudbaseConf([
    { path: 'embedded', text: '[DEFAULT]\nusername=Admin\nretry_count=3\n' },
    { path: 'C:\\conf\\cloudbase-init.conf', text: '[DEFAULT]\nusername=Other\n' },
  ]);
  assert.equal(conf.str('username'), 'Other');
  assert.equal(conf.int('retry_count'), 3);
});

test('unknown options are reported with file and line, not fatal', () => {
  const conf = loadCloudbaseConf([{ path: 'cloudbase-init.conf', text: CONF }]);
  assert.deepEqual(conf.unknown, ["cloudbase-init.conf:12: unknown option 'something_new' in [DEFAULT] (ignored)"]);
});

test("deprecated names are read as the option's own, as oslo.config does: cloudbase-init's example logdir/logfile, [DEFAULT] config_drive_*, maas_*, ec2_*; the own name wins where both are set", () => {
  const conf = loadCloudbaseConf([
    {
      path: 'cloudbase-init.conf',
      text: [
        '[DEFAULT]',
        'logdir=C:\\Program Files\\Cloudbase Solutions\\Cloudbase-Init\\log\\',
        'logfile=cloudbase-init.log',
        'config_drive_cdrom=false',
        'config_drive_types=iso',
        'maas_metadata_url=http://maas.test/MAAS/metadata/',
        'ec2_metadata_base_url=http://old.test/',
        'metadata_base_url=http://openstack.test/',
        '[ec2]',
        'metadata_base_url=http://new.test/',
        '',
      ].join('\n'),
    },
  ]);
  assert.deepEqual(conf.unknown, [], 'none is unknown');
  assert.equal(conf.str('log_dir'), 'C:\\Program Files\\Cloudbase Solutions\\Cloudbase-Init\\log\\');
  assert.equal(conf.str('log_file'), 'cloudbase-init.log');
  assert.equal(conf.bool('cdrom', 'config_drive'), false);
  assert.deepEqual(conf.list('types', 'config_drive'), ['iso']);
  assert.equal(conf.str('metadata_base_url', 'maas'), 'http://maas.test/MAAS/metadata/');
  assert.equal(conf.str('metadata_base_url', 'openstack'), 'http://openstack.test/');
  assert.equal(conf.str('metadata_base_url', 'ec2'), 'http://new.test/', 'the own name wins');
  assert.equal(conf.deprecated.length, 7);
  assert.ok(
    conf.deprecated.includes(
      "cloudbase-init.conf:2: option 'logdir' in [DEFAULT] is deprecated: use 'log_dir' in [DEFAULT]",
    ),
    conf.deprecated.join('\n'),
  );
  assert.ok(
    conf.deprecated.includes(
      "cloudbase-init.conf:7: option 'ec2_metadata_base_url' in [DEFAULT] is deprecated: use 'metadata_base_url' in [ec2] (set too, and used instead)",
    ),
    conf.deprecated.join('\n'),
  );
});

test('bad values and lines name the file and line', () => {
  assert.throws(
    () => loadCloudbaseConf([{ path: 'x.conf', text: '[DEFAULT]\nallow_reboot = perhaps\n' }]),
    (e: unknown) => e instanceof ConfigError && /x\.conf:2: option 'allow_reboot' wants a boolean/.test(e.message),
  );
  assert.throws(
    () => loadCloudbaseConf([{ path: 'x.conf', text: '[DEFAULT]\nretry_count = many\n' }]),
    /x\.conf:2: option 'retry_count' wants an integer/,
  );
  assert.throws(() => parseIni('username = a\n', 'y.conf'), /y\.conf:1: 'username' comes before any \[section\]/);
  assert.throws(() => parseIni('[DEFAULT]\njust words\n', 'z.conf'), /z\.conf:2: not a 'key = value' line/);
});

test('command-line overrides win', () => {
  const conf = loadCloudbaseConf([{ path: 'c.conf', text: '[DEFAULT]\nallow_reboot=true\n' }]);
  conf.set('allow_reboot', 'false');
  assert.equal(conf.bool('allow_reboot'), false);
});

test("the …Value reads give the option's value, else cloudbase-init's default from the option table; an option without one is a ConfigError naming it", () => {
  const conf = loadCloudbaseConf([{ path: 'c.conf', text: CONF }]);
  assert.equal(conf.strValue('username'), 'kilnadmin');
  assert.equal(conf.strValue('first_logon_behaviour'), 'clear_text_injected_only');
  assert.equal(conf.strValue('transport_cert_store_name', 'azure'), 'Windows Azure Environment');
  assert.equal(conf.boolValue('allow_reboot'), false);
  assert.equal(conf.boolValue('winrm_enable_basic_auth'), true);
  assert.equal(conf.intValue('retry_count'), 7);
  assert.equal(conf.intValue('user_password_length'), 20);
  assert.equal(conf.floatValue('retry_count_interval'), 4);
  assert.deepEqual(conf.listValue('types', 'config_drive'), ['iso']);
  assert.deepEqual(conf.listValue('locations', 'config_drive'), ['cdrom', 'hdd', 'partition']);
  // An empty string falls back to the default, as the `str(…) ?? default` reads did.
  const blank = loadCloudbaseConf([{ path: 'b.conf', text: '[DEFAULT]\nusername =\n' }]);
  assert.equal(blank.strValue('username'), 'Admin');
  assert.throws(
    () => conf.strValue('not_an_option'),
    (e: unknown) => e instanceof ConfigError && /'not_an_option' in \[DEFAULT\] has no default/.test(e.message),
  );
});

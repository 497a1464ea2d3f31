// rsyslog reads its config typed (configModule) yet as cloud-init 25.1's load_config and apply_rsyslog_changes do:
// the deprecated list format with the top-level rsyslog_filename and rsyslog_dir, entries upstream only warns about
// and skips, numbers as their text, and reload_syslog's commands (a string is one program, run without a shell).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { rsyslog } from '../../src/modules/rsyslog';
import { tempDir } from '../helpers/temp';
import { dryContext } from './late-context';
import { moduleContext } from './module-context';
import { putFile } from './root-files';

test('a list rsyslog is the deprecated format: its configs go to rsyslog_dir/rsyslog_filename, with the warning', async (t) => {
  const root = tempDir(t);
  const ctx = moduleContext(root);
  await rsyslog.run(ctx, { rsyslog: ['*.* @@192.0.2.1', 7], rsyslog_filename: 'old.conf', rsyslog_dir: '/etc/rs.d' });
  assert.equal(readFileSync(join(root, 'etc/rs.d/old.conf'), 'utf8'), '*.* @@192.0.2.1\n7\n');
  assert.ok(
    ctx.lines.some((l) =>
      l.includes(
        "[DEPRECATED]: The rsyslog key with value of type 'list' is deprecated in 22.2 and scheduled to be removed in 27.2.",
      ),
    ),
  );
});

test('an rsyslog that is not a mapping (nor a list) fails as load_config does', async (t) => {
  for (const [value, message] of [
    [null, "argument of type 'NoneType' is not iterable"],
    [5, "argument of type 'int' is not iterable"],
    ['abc', "'str' object does not support item assignment"],
  ] as const) {
    await assert.rejects(rsyslog.run(dryContext(tempDir(t)), { rsyslog: value }), {
      name: 'ModuleError',
      message: `rsyslog: ${message}`,
    });
  }
});

test("reload_syslog's auto: manage_service try-reload of system_info's rsyslog_svcname or rsyslog", async (t) => {
  const root = tempDir(t);
  putFile(root, '/usr/bin/systemctl', '', 0o755);
  putFile(root, '/usr/sbin/service', '', 0o755);
  // The running system ('/') as the module sees it; its files and commands are the temporary root's, planned only.
  const running = () => {
    const ctx = dryContext(root);
    return { ...ctx, platform: Object.create(ctx.dry, { root: { value: '/' } }) as typeof ctx.dry };
  };
  const plain = running();
  await rsyslog.run(plain, { rsyslog: { configs: ['*.* @h'] } });
  assert.deepEqual(plain.commands(), ['service rsyslog restart']);
  mkdirSync(join(root, 'run/systemd/system'), { recursive: true });
  const systemd = running();
  await rsyslog.run(systemd, { rsyslog: { configs: ['*.* @h'] }, system_info: { rsyslog_svcname: 'syslog-x' } });
  assert.deepEqual(systemd.commands(), ['systemctl reload-or-try-restart syslog-x']);
  assert.ok(systemd.lines.some((l) => l.includes("rsyslog configured ['/etc/rsyslog.d/20-cloud-config.conf'] files")));
});

test('configs entries without content or with a blank file name are warned about by their place and skipped', async (t) => {
  const root = tempDir(t);
  const ctx = moduleContext(root);
  await rsyslog.run(ctx, {
    rsyslog: {
      configs: [{ filename: 'none.conf' }, { filename: '  ', content: 'x' }, { content: 'kept', unknown: 1 }],
      config_dir: '/etc/rsyslog.d',
      never_read: true,
    },
  });
  assert.equal(readFileSync(join(root, 'etc/rsyslog.d/20-cloud-config.conf'), 'utf8'), 'kept\n');
  assert.ok(ctx.lines.some((l) => l.includes("No 'content' entry in config entry 1")));
  assert.ok(ctx.lines.some((l) => l.includes('Entry 2 has an empty filename')));
});

test('a reload command string is one program name (no shell); a wrongly typed setting fails with the schema message', async (t) => {
  const ctx = dryContext(tempDir(t));
  await rsyslog.run(ctx, { rsyslog: { configs: ['*.* @h'], service_reload_command: 'kill -HUP 1' } });
  assert.deepEqual(ctx.commands(), []);
  assert.ok(
    ctx.lines
      .join('')
      .includes(
        "[WARNING]: Failed to reload syslog Unexpected error while running command.\nCommand: kill -HUP 1\nExit code: -\nReason: [Errno 2] No such file or directory: b'kill -HUP 1'\nStdout: -\nStderr: -\n",
      ),
  );
  const root = tempDir(t);
  putFile(root, '/usr/local/bin/reload-syslog', '', 0o755);
  const one = dryContext(root);
  await rsyslog.run(one, { rsyslog: { configs: ['*.* @h'], service_reload_command: 'reload-syslog' } });
  assert.deepEqual(one.commands(), ['reload-syslog']);
  await assert.rejects(rsyslog.run(dryContext(tempDir(t)), { rsyslog: { install_rsyslog: 'yes' } }), {
    name: 'ModuleError',
    message: "rsyslog: Invalid cloud-config: rsyslog.install_rsyslog: 'yes' is not of type 'boolean'",
  });
});

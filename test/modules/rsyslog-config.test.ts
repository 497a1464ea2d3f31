// rsyslog reads its config typed (configModule) yet as cloud-init 25.1's load_config and apply_rsyslog_changes do:
// the deprecated list format with the top-level rsyslog_filename and rsyslog_dir, entries upstream only warns about
// and skips, and values kiln has always taken (numbers as their text, a reload command string for the shell).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { rsyslog } from '../../src/modules/rsyslog';
import { tempDir } from '../helpers/temp';
import { dryContext } from './late-context';
import { moduleContext } from './module-context';

test('a list rsyslog is the deprecated format: its configs go to rsyslog_dir/rsyslog_filename, with the warning', async (t) => {
  const root = tempDir(t);
  const ctx = moduleContext(root);
  await rsyslog.run(ctx, { rsyslog: ['*.* @@192.0.2.1', 7], rsyslog_filename: 'old.conf', rsyslog_dir: '/etc/rs.d' });
  assert.equal(readFileSync(join(root, 'etc/rs.d/old.conf'), 'utf8'), '*.* @@192.0.2.1\n7\n');
  assert.ok(ctx.lines.some((l) => l.includes('This rsyslog list format is deprecated')));
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

test('a reload command string runs in the shell; a wrongly typed setting fails with the schema message', async (t) => {
  const ctx = dryContext(tempDir(t));
  await rsyslog.run(ctx, { rsyslog: { configs: ['*.* @h'], service_reload_command: 'kill -HUP 1' } });
  assert.deepEqual(ctx.commands(), ['/bin/sh -c kill -HUP 1']);
  await assert.rejects(rsyslog.run(dryContext(tempDir(t)), { rsyslog: { install_rsyslog: 'yes' } }), {
    name: 'ModuleError',
    message: "rsyslog: Invalid cloud-config: rsyslog.install_rsyslog: 'yes' is not of type 'boolean'",
  });
});

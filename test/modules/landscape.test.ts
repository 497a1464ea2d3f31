// landscape: client.conf merged from cloud-init's defaults, the existing file and the config; then landscape-config.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { LANDSCAPE_CLIENT_CONF, landscapeModule } from '../../src/modules/landscape';
import type { RunResult } from '../../src/platform/platform';
import { tempDir } from '../helpers/temp';
import { dryContext, type DryContext } from './late-context';

const UBUNTU = { name: 'ubuntu', family: 'debian', version: '22.04' } as const;
const APT =
  'apt-get --option=Dpkg::Options::=--force-confold --option=Dpkg::options::=--force-unsafe-io --assume-yes --quiet';

/** A dry context whose `landscape-config --is-registered` answers with EXIT (5: not registered, 0: registered). */
function landscapeContext(root: string, registeredExit: number): DryContext {
  const ctx = dryContext(root, { distro: UBUNTU });
  const run = ctx.dry.run.bind(ctx.dry);
  ctx.dry.run = async (cmd, opts): Promise<RunResult> => {
    const r = await run(cmd, opts);
    return Array.isArray(cmd) && cmd.includes('--is-registered') ? { ...r, code: registeredExit } : r;
  };
  return ctx;
}

test('landscape installs the client, merges defaults < existing client.conf < config in ConfigObj order, and registers', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc/landscape'), { recursive: true });
  writeFileSync(
    join(root, 'etc/landscape/client.conf'),
    '[client]\nlog_level = warning\ncomputer_title = "old title"\n',
  );
  const ctx = landscapeContext(root, 5);
  await landscapeModule.run(ctx, {
    landscape: {
      client: { computer_title: 'web 1', account_name: 'acme', tags: 'a,b', url: 'https://ls.example/message-system' },
    },
  });
  assert.equal(
    await ctx.dry.readText(LANDSCAPE_CLIENT_CONF),
    [
      '[client]',
      'log_level = warning',
      'url = https://ls.example/message-system',
      'ping_url = http://landscape.canonical.com/ping',
      'data_path = /var/lib/landscape/client',
      'computer_title = web 1',
      'account_name = acme',
      'tags = "a,b"',
      '',
    ].join('\n'),
  );
  assert.equal(await ctx.dry.readText('/etc/default/landscape-client'), 'RUN=1\n');
  assert.deepEqual(ctx.commands(), [
    `${APT} update`,
    `${APT} install landscape-client`,
    'landscape-config --silent --is-registered',
    'landscape-config --silent --account-name acme --computer-title web 1 --data-path /var/lib/landscape/client --log-level warning --ping-url http://landscape.canonical.com/ping --tags a,b --url https://ls.example/message-system',
  ]);
});

test('landscape: an already registered client is only warned about; an empty section does nothing; a list is refused', async (t) => {
  const root = tempDir(t);
  const ctx = landscapeContext(root, 0);
  await landscapeModule.run(ctx, { landscape: { client: { account_name: 'acme' } } });
  assert.deepEqual(ctx.commands().slice(-1), ['landscape-config --silent --is-registered']);
  assert.ok(ctx.lines.some((l) => l.includes('Client already registered to Landscape')));
  const none = landscapeContext(root, 5);
  await landscapeModule.run(none, { landscape: {} });
  assert.deepEqual(none.dry.effects, []);
  await assert.rejects(
    landscapeModule.run(none, { landscape: ['x'] }),
    /'landscape' key existed in config, but not a dictionary type, is a list instead/,
  );
  const failing = landscapeContext(root, 2);
  await assert.rejects(landscapeModule.run(failing, { landscape: { client: {} } }), /Failure registering client/);
});

// landscape: the [client] settings merged from cloud-init's defaults, the existing client.conf and the config, and
// handed to landscape-config (25.1 writes no file).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { landscapeModule } from '../../src/modules/landscape';
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

test('landscape installs the client, merges defaults < existing client.conf < config, registers, writes nothing', async (t) => {
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
  assert.deepEqual(
    ctx.dry.effects.filter((e) => e.kind !== 'run' && !('path' in e && e.path.includes('/sem/'))),
    [],
    'neither client.conf nor /etc/default/landscape-client is written',
  );
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
  // Python's type names: type_utils.obj_name.
  for (const [value, name] of [
    [['x'], 'list'],
    [null, 'NoneType'],
    ['x', 'str'],
  ] as const) {
    await assert.rejects(
      landscapeModule.run(none, { landscape: value }),
      new RegExp(`'landscape' key existed in config, but not a dictionary type, is a ${name} instead`),
    );
  }
  const failing = landscapeContext(root, 2);
  await assert.rejects(landscapeModule.run(failing, { landscape: { client: {} } }), {
    message:
      "landscape: Failure registering client:\nUnexpected error while running command.\nCommand: ['landscape-config', '--silent', '--is-registered']\nExit code: 2\nReason: -\nStdout: \nStderr: ",
  });
  assert.ok(failing.lines.some((l) => l.includes('[WARNING]: Failure registering client:')));
});

test('landscape: other entries than client are never read; a client that is not a mapping or a value not text fails', async (t) => {
  const root = tempDir(t);
  const ctx = landscapeContext(root, 5);
  await landscapeModule.run(ctx, { landscape: { client: { account_name: 'acme' }, other: 5 } });
  assert.ok(
    ctx
      .commands()
      .includes(
        'landscape-config --silent --account-name acme --data-path /var/lib/landscape/client --log-level info --ping-url http://landscape.canonical.com/ping --url https://landscape.canonical.com/message-system',
      ),
  );
  await assert.rejects(landscapeModule.run(landscapeContext(root, 5), { landscape: { client: 'x' } }), {
    message: "landscape: 'str' object has no attribute 'items'",
  });
  const invalid = landscapeContext(root, 5);
  await assert.rejects(
    landscapeModule.run(invalid, { landscape: { client: { log_level: 5 } } }),
    /Reason: Running invalid command: \['landscape-config', '--silent', '--data-path', '\/var\/lib\/landscape\/client', '--log-level', 5,/,
  );
  assert.deepEqual(invalid.commands().slice(-1), ['landscape-config --silent --is-registered']);
});

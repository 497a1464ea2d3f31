// `kiln devel serve-metadata --kind smartos|cloudsigma --socket PATH`: the serial-port hosts on a unix socket, spoken
// to as the sources speak.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildFacts } from '../../src/build-info';
import type { CommandContext } from '../../src/cli/command';
import { parseInvocation } from '../../src/cli/parse-args';
import { COMMANDS } from '../../src/cli/registry';
import { cepkoRequest } from '../../src/sources/cloudsigma';
import { openSocketChannel } from '../../src/util/line-channel';
import { JoyentMetadataClient } from '../../src/sources/smartos/joyent-metadata-client';
import { UsageError } from '../../src/util/errors';
import { Logger } from '../../src/util/log';
import { tempDir } from '../helpers/temp';

async function serve(args: string[]): Promise<{ out: () => string; done: Promise<number> }> {
  let out = '';
  const logger = new Logger();
  const inv = parseInvocation(['devel', 'serve-metadata', ...args], COMMANDS, 'kiln');
  assert.ok(inv.command);
  const ctx: CommandContext = {
    face: 'kiln',
    argv0: 'kiln',
    facts: buildFacts,
    root: '/',
    dryRun: false,
    debug: false,
    logger,
    log: logger.for('test'),
    io: { out: (s) => void (out += s), err: () => undefined },
    env: {},
    platform: () => assert.fail('not used'),
  };
  const done = inv.command.run(ctx, inv.args);
  for (let i = 0; i < 100 && !out.includes('serving'); i++) await new Promise((r) => setTimeout(r, 20));
  return { out: () => out, done };
}

test('--kind smartos --socket: a Joyent V2 host answering from a folder of keys', async (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, 'keys'));
  writeFileSync(join(dir, 'keys', 'sdc:uuid'), 'abc-123');
  const sock = join(dir, 'metadata.sock');
  const s = await serve(['--kind', 'smartos', '--dir', join(dir, 'keys'), '--socket', sock, '--exit-after', '3']);
  assert.match(s.out(), /serving smartos metadata .* on .*metadata\.sock/);
  const channel = await openSocketChannel(sock, 2000);
  const client = new JoyentMetadataClient(channel, 2000, new Logger().for('test'), sock);
  await client.negotiate();
  assert.equal(await client.get('sdc:uuid'), 'abc-123');
  assert.equal(await client.get('nothing'), undefined);
  assert.deepEqual(await client.keys(), ['sdc:uuid']);
  await channel.close();
  assert.equal(await s.done, 0);
});

test('--kind cloudsigma --socket: the server context answered to cepko requests; --socket is required', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'context.json'), JSON.stringify({ uuid: 'u-1', meta: { a: 'b' } }));
  const sock = join(dir, 'cs.sock');
  const s = await serve(['--kind', 'cloudsigma', '--dir', dir, '--socket', sock, '--exit-after', '3']);
  const channel = await openSocketChannel(sock, 2000);
  await channel.write(cepkoRequest(''));
  assert.equal(await channel.readLine(2000), '{"uuid":"u-1","meta":{"a":"b"}}\x04');
  await channel.write(cepkoRequest('/meta/a'));
  assert.equal(await channel.readLine(2000), 'b\x04');
  await channel.close();
  assert.equal(await s.done, 0);
  const inv = parseInvocation(['devel', 'serve-metadata', '--kind', 'cloudsigma', '--dir', dir], COMMANDS, 'kiln');
  const logger = new Logger();
  await assert.rejects(
    inv.command?.run(
      {
        face: 'kiln',
        argv0: 'kiln',
        facts: buildFacts,
        root: '/',
        dryRun: false,
        debug: false,
        logger,
        log: logger.for('test'),
        io: { out: () => undefined, err: () => undefined },
        env: {},
        platform: () => assert.fail('not used'),
      },
      inv.args,
    ) ?? Promise.reject(new Error('no command')),
    (err: Error) => err instanceof UsageError && /needs --socket PATH/.test(err.message),
  );
});

// `cloud-init devel net-convert` with cloud-init's flags, run in-process: files under -d, messages, exit codes.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildFacts } from '../../src/build-info';
import type { CommandContext } from '../../src/cli/command';
import { faceFromInvocation } from '../../src/cli/face';
import { parseInvocation } from '../../src/cli/parse-args';
import { COMMANDS } from '../../src/cli/registry';
import { UsageError, describeError } from '../../src/util/errors';
import { Logger } from '../../src/util/log';
import { tempDir } from '../helpers/temp';
import { FIXTURES } from './fixture-cases';

/** Parses ARGV as main does and runs the command; exit codes as main maps them (usage 2, other errors 1). */
async function run(argv: string[], argv0 = 'cloud-init'): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const face = faceFromInvocation(argv0);
  try {
    const { command, args, global } = parseInvocation(argv, COMMANDS, face);
    assert.ok(command, 'a command');
    const logger = new Logger();
    const ctx: CommandContext = {
      face,
      argv0: face,
      facts: buildFacts,
      root: global.root,
      dryRun: global.dryRun,
      debug: global.debug,
      logger,
      log: logger.for('test.ts'),
      io: { out: (s) => void (out += s), err: (s) => void (err += s) },
      env: {},
      platform: () => assert.fail('net-convert must not need the platform'),
    };
    return { code: await command.run(ctx, args), out, err };
  } catch (e) {
    return { code: e instanceof UsageError ? 2 : 1, out, err: err + describeError(e) };
  }
}

test('short flags as cloud-init takes them, repeated -m, output under -d', async (t) => {
  const dir = tempDir(t);
  const input = join(FIXTURES, 'openstack-bond-vlan', 'input.json');
  const r = await run([
    'devel',
    'net-convert',
    '-p',
    input,
    '-k',
    'network_data.json',
    '-d',
    dir,
    '-D',
    'debian',
    '-O',
    'netplan',
    '-m',
    'ens3,fa:16:3e:00:00:01',
    '-m',
    'ens4,FA:16:3E:00:00:02',
  ]);
  assert.equal(r.code, 0, r.err);
  assert.equal(
    r.err,
    `Read input format 'network_data.json' from '${input}'.\nWrote output format 'netplan' to '${dir}/'\n\n`,
  );
  assert.equal(
    readFileSync(join(dir, 'etc/netplan/50-cloud-init.yaml'), 'utf8'),
    readFileSync(join(FIXTURES, 'openstack-bond-vlan/expected/netplan/etc/netplan/50-cloud-init.yaml'), 'utf8'),
  );
});

test('long flags in the kiln face', async (t) => {
  const dir = tempDir(t);
  const r = await run(
    [
      'devel',
      'net-convert',
      '--network-data',
      join(FIXTURES, 'v1-bridge/input.yaml'),
      '--kind',
      'yaml',
      '--directory',
      dir,
      '--distro',
      'rhel',
      '--output-kind',
      'sysconfig',
    ],
    'kiln',
  );
  assert.equal(r.code, 0, r.err);
  assert.equal(
    readFileSync(join(dir, 'etc/sysconfig/network-scripts/ifcfg-br0'), 'utf8'),
    readFileSync(join(FIXTURES, 'v1-bridge/expected/sysconfig/etc/sysconfig/network-scripts/ifcfg-br0'), 'utf8'),
  );
});

test('-O sysconfig merges into the resolv.conf and /etc/sysconfig/network already under -d, as cloud-init does', async (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, 'etc/sysconfig'), { recursive: true });
  writeFileSync(join(dir, 'etc/resolv.conf'), 'options rotate\nnameserver 192.0.2.9\n');
  writeFileSync(join(dir, 'etc/sysconfig/network'), 'NETWORKING=no\nHOSTNAME=box\n');
  const r = await run([
    'devel',
    'net-convert',
    '-p',
    join(FIXTURES, 'v1-dns-search/input.yaml'),
    '-k',
    'yaml',
    '-d',
    dir,
    '-D',
    'rhel',
    '-O',
    'sysconfig',
  ]);
  assert.equal(r.code, 0, r.err);
  const header = 'Created by cloud-init automatically, do not edit.';
  assert.equal(
    readFileSync(join(dir, 'etc/resolv.conf'), 'utf8'),
    `; ${header}\n;\noptions rotate\nnameserver 192.0.2.9\nnameserver 10.5.0.53\nnameserver 10.5.0.54\nsearch a.example b.example c.example\n`,
  );
  assert.equal(
    readFileSync(join(dir, 'etc/sysconfig/network'), 'utf8'),
    `# ${header}\n#\nNETWORKING=yes\nHOSTNAME=box\n`,
  );
});

test('bad input exits 1 naming the key; bad use exits 2', async (t) => {
  const dir = tempDir(t);
  const bad = join(dir, 'bad.yaml');
  writeFileSync(bad, 'network:\n  version: 2\n  ethernets:\n    eth0:\n      addresses: [10.0.0.1/24, nonsense]\n');
  const r = await run([
    'devel',
    'net-convert',
    '-p',
    bad,
    '-k',
    'yaml',
    '-d',
    join(dir, 'out'),
    '-D',
    'debian',
    '-O',
    'eni',
  ]);
  assert.equal(r.code, 1);
  assert.match(r.err, /network\.ethernets\.eth0\.addresses\[1\]/);
  assert.equal(
    (await run(['devel', 'net-convert', '-p', bad, '-k', 'toml', '-d', dir, '-D', 'debian', '-O', 'eni'])).code,
    2,
  );
  assert.equal(
    (await run(['devel', 'net-convert', '-p', bad, '-k', 'yaml', '-d', dir, '-D', 'plan9', '-O', 'eni'])).code,
    2,
  );
  assert.equal(
    (await run(['devel', 'net-convert', '-p', bad, '-k', 'yaml', '-d', dir, '-D', 'debian', '-O', 'ifcfg'])).code,
    2,
  );
});

test('-k vmware-imc reads a cust.cfg and names NICs by their section, as cloud-init 22.4 does (-m ignored)', async (t) => {
  const dir = tempDir(t);
  const input = join(FIXTURES, 'vmware-imc-static-2nic', 'input.cfg');
  const r = await run([
    'devel',
    'net-convert',
    '-p',
    input,
    '-k',
    'vmware-imc',
    '-d',
    dir,
    '-D',
    'debian',
    '-O',
    'eni',
    '-m',
    'ens192,00:50:56:ab:10:01',
  ]);
  assert.equal(r.code, 0, r.err);
  assert.equal(
    readFileSync(join(dir, 'etc/network/interfaces.d/50-cloud-init'), 'utf8'),
    readFileSync(join(FIXTURES, 'vmware-imc-static-2nic/expected/eni/etc/network/interfaces.d/50-cloud-init'), 'utf8'),
  );
  const bad = join(dir, 'bad.cfg');
  writeFileSync(bad, '[NIC-CONFIG]\nNICS = NIC1\n[NIC1]\nONBOOT = yes\n');
  const b = await run([
    'devel',
    'net-convert',
    '-p',
    bad,
    '-k',
    'vmware-imc',
    '-d',
    join(dir, 'out'),
    '-D',
    'debian',
    '-O',
    'eni',
  ]);
  assert.equal(b.code, 1);
  assert.match(b.err, /bad\.cfg: \[NIC1\] has no MACADDR/);
});

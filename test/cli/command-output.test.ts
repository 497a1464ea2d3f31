// Files a command is asked to make on the host (net-convert's output, analyze --outfile, collect-logs' tarball)
// are written normally, and under --dry-run only announced: nothing appears on disk.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/main';
import { tempDir } from '../helpers/temp';

async function cli(argv: string[]) {
  let out = '';
  let err = '';
  const code = await main({
    argv,
    argv0: 'kiln',
    env: {},
    io: { out: (s) => void (out += s), err: (s) => void (err += s) },
  });
  return { code, out, err };
}

const NETPLAN = 'network:\n  version: 2\n  ethernets:\n    eth0:\n      dhcp4: true\n';

test('devel net-convert writes its files, and under --dry-run names them without writing', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'net.yaml'), NETPLAN);
  const args = ['devel', 'net-convert', '-p', join(dir, 'net.yaml'), '-k', 'yaml', '-D', 'ubuntu', '-O', 'netplan'];
  const dry = await cli(['--dry-run', ...args, '-d', join(dir, 'dry')]);
  assert.equal(dry.code, 0, dry.err);
  assert.match(dry.out, /^dry run: would write .*\/dry\/etc\/netplan\/50-cloud-init\.yaml \(\d+ bytes\)$/m);
  assert.equal(existsSync(join(dir, 'dry')), false);
  const real = await cli([...args, '-d', join(dir, 'real')]);
  assert.equal(real.code, 0, real.err);
  assert.match(readFileSync(join(dir, 'real/etc/netplan/50-cloud-init.yaml'), 'utf8'), /eth0:/);
});

test('collect-logs and analyze --outfile write nothing under --dry-run', async (t) => {
  const root = tempDir(t);
  const out = tempDir(t);
  mkdirSync(join(root, 'var/log'), { recursive: true });
  writeFileSync(join(root, 'var/log/cloud-init.log'), 'a log line\n');
  const logs = await cli(['--root', root, '--dry-run', 'collect-logs', '--tarfile', join(out, 'logs.tgz')]);
  assert.equal(logs.code, 0, logs.err);
  assert.match(logs.out, /^dry run: would write .*\/logs\.tgz \(\d+ bytes\)$/m);
  assert.doesNotMatch(logs.out, /^Wrote /m);
  writeFileSync(join(out, 'events.jsonl'), '');
  const analyze = await cli([
    '--root',
    root,
    '--dry-run',
    'analyze',
    'dump',
    '--infile',
    join(out, 'events.jsonl'),
    '--outfile',
    join(out, 'dump.json'),
  ]);
  assert.equal(analyze.code, 0, analyze.err);
  assert.match(analyze.out, /^dry run: would write .*\/dump\.json \(\d+ bytes\)$/m);
  assert.deepEqual(readdirSync(out), ['events.jsonl']);
});

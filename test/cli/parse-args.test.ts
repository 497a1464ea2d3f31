import assert from 'node:assert/strict';
import { test } from 'node:test';
import { faceFromInvocation } from '../../src/cli/face';
import { faceHelp } from '../../src/cli/help';
import { parseInvocation } from '../../src/cli/parse-args';
import { COMMANDS } from '../../src/cli/registry';
import { UsageError } from '../../src/util/errors';

test('the face follows the invocation name', () => {
  assert.equal(faceFromInvocation('/usr/bin/cloud-init'), 'cloud-init');
  assert.equal(faceFromInvocation('C:\\Program Files\\kiln\\cloudbase-init.exe'), 'cloudbase-init');
  assert.equal(faceFromInvocation('CLOUDBASE-INIT.EXE'), 'cloudbase-init');
  assert.equal(faceFromInvocation('/tmp/x/kiln-linux-x64'), 'kiln');
  assert.equal(faceFromInvocation('/tmp/x/kiln', 'cloud-init'), 'cloud-init');
});

test('global flags and the command are found wherever the flags stand', () => {
  const inv = parseInvocation(['--root', '/tmp/r', 'version', '--long', '--dry-run'], COMMANDS, 'kiln');
  assert.deepEqual(inv.command?.words, ['version']);
  assert.equal(inv.global.root, '/tmp/r');
  assert.equal(inv.global.dryRun, true);
  assert.equal(inv.args.flags.long, true);
});

test('two-word commands and their positional arguments', () => {
  const inv = parseInvocation(['devel', 'write-file', '/etc/x', '--content', 'hi', '--mode', '0600'], COMMANDS, 'kiln');
  assert.deepEqual(inv.command?.words, ['devel', 'write-file']);
  assert.deepEqual(inv.args.positional, ['/etc/x']);
  assert.equal(inv.args.flags.mode, '0600');
});

test('unknown commands, unknown flags and missing values are usage errors', () => {
  assert.throws(
    () => parseInvocation(['frobnicate'], COMMANDS, 'kiln'),
    (e: unknown) => e instanceof UsageError && /unknown command 'frobnicate'/.test(e.message),
  );
  assert.throws(
    () => parseInvocation(['version', '--bogus'], COMMANDS, 'kiln'),
    (e: unknown) => e instanceof UsageError && /--bogus/.test(e.message),
  );
  assert.throws(() => parseInvocation(['version', 'extra'], COMMANDS, 'kiln'), /unexpected argument 'extra'/);
  assert.throws(() => parseInvocation(['devel', 'write-file'], COMMANDS, 'kiln'), /needs 1 argument/);
  assert.throws(() => parseInvocation(['version', '--root'], COMMANDS, 'kiln'), /--root needs a value/);
});

test("a command's own short flag wins over the global one: net-convert's -d is its directory, never --debug", () => {
  const inv = parseInvocation(
    ['devel', 'net-convert', '-p', 'n.yaml', '-k', 'yaml', '-d', 'out', '-D', 'debian', '-O', 'netplan'],
    COMMANDS,
    'kiln',
  );
  assert.equal(inv.command?.words.join(' '), 'devel net-convert');
  assert.equal(inv.args.flags.directory, 'out');
  assert.equal(inv.global.debug, false, 'the global --debug stays off');
  assert.deepEqual(inv.args.positional, []);
  // Elsewhere -d is still --debug, before or after the command word.
  for (const argv of [
    ['-d', 'status'],
    ['status', '-d'],
  ]) {
    const other = parseInvocation(argv, COMMANDS, 'kiln');
    assert.equal(other.command?.words.join(' '), 'status');
    assert.equal(other.global.debug, true);
  }
});

test('a group word alone is reported as a group', () => {
  const inv = parseInvocation(['devel'], COMMANDS, 'kiln');
  assert.deepEqual(inv.group, ['devel']);
  assert.throws(() => parseInvocation(['devel', 'nope'], COMMANDS, 'kiln'), /unknown command|unexpected argument/);
});

test('--help on a command does not demand its arguments', () => {
  const inv = parseInvocation(['devel', 'write-file', '--help'], COMMANDS, 'kiln');
  assert.equal(inv.global.help, true);
});

test("--help groups the boot stages apart from the devel tools, and names the other OS's commands instead of listing them as if they worked", () => {
  const linux = faceHelp('kiln', COMMANDS, 'linux');
  const boot = linux.slice(linux.indexOf('boot stages'), linux.indexOf('\ncommands:'));
  for (const c of ['init', 'modules', 'single', '--all-stages'])
    assert.match(boot, new RegExp(`^  ${c} `, 'm'), `${c} is a boot stage`);
  const devel = linux.slice(linux.indexOf('\ndevel ('));
  assert.match(devel, /^ {2}devel net-convert /m);
  assert.doesNotMatch(
    linux,
    /^ {2}(service install|cloudbase-init) /m,
    'Windows-only commands are not listed on Linux',
  );
  assert.match(
    linux,
    /^on Windows only \(the Windows build of kiln\): cloudbase-init, service install, service uninstall, service run, devel win32-probe$/m,
  );
  const windows = faceHelp('kiln', COMMANDS, 'windows');
  assert.match(windows, /^ {2}service install /m);
  assert.doesNotMatch(windows, /^on Windows only/m);
});

test("clean's --configs takes every kind after it, as 25.1's nargs='+', short or long, repeated or not", () => {
  const configs = (argv: string[]) => parseInvocation(argv, COMMANDS, 'cloud-init').args.flags.configs;
  assert.deepEqual(configs(['clean', '--configs', 'ssh_config', 'network']), ['ssh_config', 'network']);
  assert.deepEqual(configs(['clean', '-c', 'ssh_config', 'network', '--logs']), ['ssh_config', 'network']);
  assert.deepEqual(configs(['clean', '--configs=fstab', '-c', 'datasource']), ['fstab', 'datasource']);
  const r = parseInvocation(['clean', '--logs', '--configs', 'all', '--machine-id'], COMMANDS, 'cloud-init');
  assert.deepEqual(
    [r.args.flags.configs, r.args.flags.logs, r.args.flags['machine-id'], r.args.positional],
    [['all'], true, true, []],
  );
  assert.throws(() => parseInvocation(['clean', '--configs'], COMMANDS, 'cloud-init'), UsageError);
});

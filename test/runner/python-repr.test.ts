// Module errors and cloud-config.txt as cloud-init 22.4 writes them (strings taken from a Debian 22.4 run).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatCloudConfigFile } from '../../src/runner/merge-cloud-config';
import { moduleErrorRepr } from '../../src/runner/python-repr';
import { pyStrRepr } from '../../src/util/python-str-repr';
import { CommandError } from '../../src/util/command-error';

test('a failed command reads as ProcessExecutionError in status.json', () => {
  const err = new CommandError('x', {
    argv: ['update-locale', '--locale-file=/etc/default/locale', 'LANG=en_US.UTF-8'],
    code: 255,
  });
  assert.equal(
    moduleErrorRepr('locale', err),
    `('locale', ProcessExecutionError("Unexpected error while running command.\\nCommand: ['update-locale', '--locale-file=/etc/default/locale', 'LANG=en_US.UTF-8']\\nExit code: 255\\nReason: -\\nStdout: -\\nStderr: -"))`,
  );
  const captured = new CommandError('x', { argv: ['false'], code: 1, stdout: '', stderr: 'a\nb\n' });
  // Captured and empty is an empty string, not '-' (a 22.4 run's `systemctl restart` failure: "Stdout: \\nStderr:
  // System …").
  assert.match(moduleErrorRepr('m', captured), /Stdout: \\nStderr: a\\n {8}b"\)\)$/);
  assert.equal(moduleErrorRepr('m', new Error('m: it broke')), "('m', Error('it broke'))");
});

test("Python's str repr picks its quotes and escapes", () => {
  assert.equal(pyStrRepr('plain'), "'plain'");
  assert.equal(pyStrRepr("it's"), '"it\'s"');
  assert.equal(pyStrRepr(`both ' and "`), `'both \\' and "'`);
  assert.equal(pyStrRepr('a\\b\tc\x01'), "'a\\\\b\\tc\\x01'");
});

test('cloud-config.txt: the part list, then PyYAML dump with explicit start and end', () => {
  assert.equal(formatCloudConfigFile({}, ['part-001']), '#cloud-config\n\n# from 1 files\n# part-001\n\n--- {}\n...\n');
  assert.equal(formatCloudConfigFile(undefined, []), '');
  assert.equal(
    formatCloudConfigFile({ write_files: [{ path: '/p', content: 'key = value\n' }], timezone: 'Etc/UTC' }, [
      'config.yaml',
    ]),
    "#cloud-config\n\n# from 1 files\n# config.yaml\n\n---\ntimezone: Etc/UTC\nwrite_files:\n-   content: 'key = value\n\n        '\n    path: /p\n...\n",
  );
  // PyYAML folds a plain value at the first single space past column 80.
  const key = `ssh-ed25519 ${'A'.repeat(68)} user@x`;
  assert.equal(
    formatCloudConfigFile({ k: key, l: [key] }, ['p']),
    `#cloud-config\n\n# from 1 files\n# p\n\n---\nk: ssh-ed25519 ${'A'.repeat(68)}\n    user@x\nl:\n- ssh-ed25519 ${'A'.repeat(68)}\n    user@x\n...\n`,
  );
});

// Checks how Windows user data is told to be a MIME message, by cloudbase-init's rule (its header block).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isMultipart, processWindowsUserData } from '../../src/userdata/windows-user-data';

const boundary = 'kiln-boundary';
function message(headers: string[], eol = '\n'): Buffer {
  const lines = [
    ...headers,
    '',
    `--${boundary}`,
    'Content-Type: text/x-shellscript',
    'Content-Disposition: attachment; filename="setup.ps1"',
    '',
    'Write-Output hello',
    `--${boundary}`,
    'Content-Type: text/cloud-config',
    '',
    '#cloud-config',
    'set_timezone: UTC',
    `--${boundary}--`,
    '',
  ];
  return Buffer.from(lines.join(eol));
}

test('a MIME message that opens with MIME-Version is read part by part', async () => {
  const r = await processWindowsUserData(message(['MIME-Version: 1.0', `Content-Type: multipart/mixed; boundary="${boundary}"`]));
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.ignored, []);
  assert.deepEqual(
    r.scripts.map((s) => [s.kind, s.name, Buffer.from(s.content).toString()]),
    [['powershell', 'setup.ps1', 'Write-Output hello']],
  );
  assert.deepEqual(r.cloudConfig, { set_timezone: 'UTC' });
});

test('a MIME message with other headers before Content-Type is still multipart', async () => {
  const r = await processWindowsUserData(message(['From: nobody@example.invalid', 'MIME-Version: 1.0', `Content-Type: multipart/mixed; boundary="${boundary}"`]));
  assert.equal(r.scripts.length, 1);
  assert.deepEqual(r.cloudConfig, { set_timezone: 'UTC' });
});

test('the rule looks only before the first empty line', () => {
  assert.equal(isMultipart(Buffer.from(`MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=x\n\nbody`)), true);
  assert.equal(isMultipart(Buffer.from(`#ps1\nWrite-Output a\n\n# Content-Type: multipart/mixed\n`)), false);
  // No empty line at all: cloudbase-init's header block is then the whole text.
  assert.equal(isMultipart(Buffer.from(`#ps1\n# Content-Type: multipart/mixed\nWrite-Output a\n`)), true);
});

test('the rule is case-sensitive and looks for LF pairs only, as cloudbase-init does', () => {
  assert.equal(isMultipart(Buffer.from(`MIME-Version: 1.0\ncontent-type: multipart/mixed; boundary=x\n\nbody`)), false);
  // CRLF text has no "\n\n", so the whole text is the header block.
  assert.equal(isMultipart(Buffer.from(`#ps1\r\n\r\nContent-Type: multipart/mixed\r\n`)), true);
});

test('a script whose body (after an empty line) names a multipart type is still one script', async () => {
  const r = await processWindowsUserData(Buffer.from('#ps1\nWrite-Output a\n\n# Content-Type: multipart/mixed\n'));
  assert.deepEqual(r.scripts.map((s) => s.kind), ['powershell']);
});

// Checks how Windows user data is told to be a MIME message, by cloudbase-init's rule (its header block).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isMultipart, processWindowsUserData, scriptsOf } from '../../src/userdata/windows-user-data';

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

test('a MIME message that opens with MIME-Version is read part by part, each part a step in order', async () => {
  const r = await processWindowsUserData(
    message(['MIME-Version: 1.0', `Content-Type: multipart/mixed; boundary="${boundary}"`]),
  );
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.ignored, []);
  assert.deepEqual(
    r.steps.map((s) => [s.kind, s.part]),
    [
      ['scripts', 'user-data setup.ps1'],
      ['cloud-config', 'user-data part-002'],
    ],
  );
  assert.deepEqual(
    scriptsOf(r).map((s) => [s.kind, s.name, Buffer.from(s.content).toString()]),
    [['powershell', 'setup.ps1', 'Write-Output hello']],
  );
  assert.deepEqual(r.steps[1]?.kind === 'cloud-config' && r.steps[1].config, { set_timezone: 'UTC' });
});

test("x-shellscript parts run by their file name's extension first, as fileexecutils.exec_file (an .exe part is a program), then by their header", async () => {
  const part = (name: string | undefined, body: string) => [
    `--${boundary}`,
    'Content-Type: text/x-shellscript',
    ...(name ? [`Content-Disposition: attachment; filename="${name}"`] : []),
    '',
    body,
  ];
  const text = [
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    ...part('tool.exe', 'MZ binary'),
    ...part('a.cmd', '#ps1 looks like PowerShell'),
    ...part(undefined, '#ps1_x86\nWrite-Output x'),
    `--${boundary}--`,
    '',
  ].join('\n');
  const r = await processWindowsUserData(Buffer.from(text));
  assert.deepEqual(r.errors, []);
  assert.deepEqual(
    scriptsOf(r).map((s) => [s.name, s.kind]),
    [
      ['tool.exe', 'exe'],
      ['a.cmd', 'cmd'],
      ['part-003', 'powershell-x86'],
    ],
  );
});

test('a MIME message with other headers before Content-Type is still multipart', async () => {
  const r = await processWindowsUserData(
    message([
      'From: nobody@example.invalid',
      'MIME-Version: 1.0',
      `Content-Type: multipart/mixed; boundary="${boundary}"`,
    ]),
  );
  assert.equal(scriptsOf(r).length, 1);
  assert.deepEqual(
    r.steps.map((s) => s.kind),
    ['scripts', 'cloud-config'],
  );
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
  assert.deepEqual(
    scriptsOf(r).map((s) => s.kind),
    ['powershell'],
  );
});

// user-data.txt.i as cloud-init 22.4 writes it (texts taken from a Debian 22.4 run, boundary fixed).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { processUserData } from '../../src/userdata/process-user-data';
import { emptyProcessedPart, formatProcessedMessage, pythonBoundary } from '../../src/userdata/processed-message';

const B = '===============0000000000000000001==';

test('plain user data: one part, Content-Type moved after MIME-Version, part-001', async () => {
  const r = await processUserData({ userData: '#!/bin/sh\necho hi\n' });
  assert.equal(
    formatProcessedMessage(r.processed.user ?? [], B).toString(),
    `Content-Type: multipart/mixed; boundary="${B}"\nMIME-Version: 1.0\nNumber-Attachments: 1\n\n--${B}\nMIME-Version: 1.0\nContent-Type: text/x-shellscript\nContent-Disposition: attachment; filename="part-001"\n\n#!/bin/sh\necho hi\n\n--${B}--\n`,
  );
});

test("MIME user data keeps each part's headers and names; missing data is one empty untyped part", async () => {
  const mime = `Content-Type: multipart/mixed; boundary="x"\nMIME-Version: 1.0\n\n--x\nContent-Type: text/cloud-config; charset="us-ascii"\nMIME-Version: 1.0\nContent-Disposition: attachment; filename="c.yaml"\n\n#cloud-config\na: 1\n\n--x\nContent-Type: text/plain\n\n#!/bin/sh\ntrue\n\n--x--\n`;
  const r = await processUserData({ userData: mime });
  const text = formatProcessedMessage(r.processed.user ?? [], B).toString();
  assert.ok(text.includes('Number-Attachments: 2\n'));
  assert.ok(
    text.includes(
      `--${B}\nContent-Type: text/cloud-config; charset="us-ascii"\nMIME-Version: 1.0\nContent-Disposition: attachment; filename="c.yaml"\n\n#cloud-config\na: 1\n\n--${B}\n`,
    ),
  );
  assert.ok(
    text.includes(
      `--${B}\nContent-Type: text/x-shellscript\nContent-Disposition: attachment; filename="part-002"\n\n#!/bin/sh\ntrue\n\n--${B}--\n`,
    ),
  );
  assert.equal(
    formatProcessedMessage([emptyProcessedPart()], B).toString(),
    `Content-Type: multipart/mixed; boundary="${B}"\nMIME-Version: 1.0\nNumber-Attachments: 1\n\n--${B}\nMIME-Version: 1.0\nContent-Type: text/x-not-multipart\nContent-Disposition: attachment; filename="part-001"\n\n\n--${B}--\n`,
  );
  assert.match(pythonBoundary(), /^={15}\d{19}==$/);
});

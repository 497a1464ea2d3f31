// The EC2-style metadata crawler decodes what it reads as cloud-init 22.4's MetadataMaterializer does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crawlMetadataTree, decodeMetadataLeaf, ec2PublicKeys } from '../../src/sources/metadata-crawler';

test('a leaf is text, a list of lines when it has several, an object when it is a JSON object, "" when empty', () => {
  assert.equal(decodeMetadataLeaf(''), '');
  assert.equal(decodeMetadataLeaf('i-0123'), 'i-0123');
  assert.deepEqual(decodeMetadataLeaf('10.0.0.5\n10.0.0.6'), ['10.0.0.5', '10.0.0.6']);
  // A final line break ends the last line (Python's splitlines), it does not add an empty one.
  assert.deepEqual(decodeMetadataLeaf('ssh-ed25519 AAAA alice\n'), ['ssh-ed25519 AAAA alice']);
  assert.deepEqual(decodeMetadataLeaf(' {"region": "us-east-2"}\n'), { region: 'us-east-2' });
  assert.equal(decodeMetadataLeaf('{not json}'), '{not json}');
});

test('the crawl names keys after their index line, reads 0/openssh-key directly and never fetches credentials', async () => {
  const served: Record<string, string> = {
    'meta-data/': 'instance-id\nlocal-ipv4s\npublic-keys/\niam/\nplacement/',
    'meta-data/instance-id': 'i-0123',
    'meta-data/local-ipv4s': '10.0.0.5\n10.0.0.6',
    'meta-data/public-keys/': '0=alice\n1=bob',
    'meta-data/public-keys/0/openssh-key': 'ssh-ed25519 AAAA alice@example\n',
    'meta-data/public-keys/1/openssh-key': 'ssh-rsa BBBB bob@example',
    'meta-data/iam/': 'info\nsecurity-credentials/',
    'meta-data/iam/info': '{"Code": "Success"}',
    'meta-data/placement/': 'availability-zone',
    'meta-data/placement/availability-zone': 'us-east-2b',
  };
  const asked: string[] = [];
  const meta = await crawlMetadataTree(
    'Ec2',
    async (p) => {
      asked.push(p);
      return served[p];
    },
    'meta-data/',
  );
  assert.deepEqual(meta, {
    'instance-id': 'i-0123',
    'local-ipv4s': ['10.0.0.5', '10.0.0.6'],
    'public-keys': { alice: ['ssh-ed25519 AAAA alice@example'], bob: 'ssh-rsa BBBB bob@example' },
    iam: { info: { Code: 'Success' } },
    placement: { 'availability-zone': 'us-east-2b' },
  });
  assert.deepEqual(
    asked.filter((p) => p.includes('security-credentials') || p.endsWith('/0/')),
    [],
  );
  assert.deepEqual(ec2PublicKeys(meta), ['ssh-ed25519 AAAA alice@example', 'ssh-rsa BBBB bob@example']);
});

// OVF: the XML reader on well-formed and hostile documents, and ovf-env.xml read from real ISO 9660 images through the
// device readers.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { ImageFilesFinder } from '../../src/devices/image-finder';
import { writeIso9660 } from '../../src/devices/iso9660-writer';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { CrawlContext } from '../../src/sources/datasource';
import { ovfProperties, parseOvfXml, readOvfEnvironment } from '../../src/sources/ovf/ovf-environment';
import { ovfSource } from '../../src/sources/ovf/ovf-source';
import { SourceError } from '../../src/sources/source-error';
import { Logger } from '../../src/util/log';
import { FIXTURES } from '../helpers/repo';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

const log = new Logger().for('test');
const ENV = join(FIXTURES, 'sources/ovf/iso-env/drive/ovf-env.xml');

test('XML: namespaces by prefix and default, entities and character references, CDATA, comments and PIs', () => {
  const root = parseOvfXml(
    `<?xml version="1.0"?>\n<!-- c --><a:R xmlns:a="urn:a" xmlns="urn:d" a:x="1&amp;2&#65;&#x42;" y='t\tu'><?pi x?><C>x &lt; y<![CDATA[<raw>&amp;]]></C><a:D/></a:R>\n<!-- after -->\n`,
    'doc',
  );
  assert.equal(root.local, 'R');
  assert.equal(root.ns, 'urn:a');
  assert.equal(root.attributes['a:x'], '1&2AB');
  assert.equal(root.attributeNs['a:x'], 'urn:a');
  assert.equal(root.attributes.y, 't u', 'attribute values are normalised');
  assert.equal(root.attributeNs.y, '', 'unprefixed attributes have no namespace');
  assert.equal(root.children[0]?.ns, 'urn:d', 'unprefixed elements take the default namespace');
  assert.equal(root.children[0]?.text, 'x < y<raw>&amp;');
  assert.equal(root.children[1]?.local, 'D');
});

const HOSTILE: Array<[string, string, RegExp]> = [
  ['a DOCTYPE', '<!DOCTYPE r [<!ENTITY e "x">]><r>&e;</r>', /document type declarations are refused/],
  ['an undeclared entity', '<r>&e;</r>', /unknown entity &e;/],
  ['a bare ampersand', '<r>a & b</r>', /a bare '&'/],
  ['an undeclared prefix', '<p:r/>', /the prefix 'p' of p:r is not declared/],
  ['a duplicate attribute', '<r a="1" a="2"/>', /attribute a appears twice/],
  ['content after the root', '<r/><s/>', /content after the root element/],
  ['an unclosed element', '<r><s></r>', /expected <\/s> to close <s>/],
  ['a missing end', '<r><s/>', /element <r> is not closed/],
  ['an unquoted attribute', '<r a=1/>', /needs a quoted value/],
  ['a NUL character reference', '<r>&#0;</r>', /unknown entity &#0;/],
  ['nesting past the limit', `${'<a>'.repeat(300)}${'</a>'.repeat(300)}`, /nested deeper than 64/],
  ['no element at all', '<!-- only a comment -->', /the document is empty/],
];
for (const [name, xml, why] of HOSTILE) {
  test(`XML: ${name} is refused, naming the source and line`, () => {
    assert.throws(
      () => parseOvfXml(xml, 'the-doc'),
      (e: unknown) =>
        e instanceof SourceError && e.message.startsWith('OVF: the-doc: not usable XML at line') && why.test(e.message),
    );
  });
}

test('ovf-env.xml: only the first PropertySection, oe:key/oe:value; unprefixed key/value accepted too (cloud-init would crash)', () => {
  const props = ovfProperties(readFileSync(ENV, 'utf8'), 'iso');
  assert.equal(props.get('instance-id'), 'iid-ovf-web');
  assert.equal(props.get('unknown-prop'), 'ignored & kept out');
  const ns = 'http://schemas.dmtf.org/ovf/environment/1';
  const two = `<Environment xmlns="${ns}"><PropertySection><Property key="a" value="1"/></PropertySection><PropertySection><Property key="b" value="2"/></PropertySection></Environment>`;
  assert.deepEqual([...ovfProperties(two, 'x')], [['a', '1']]);
  assert.throws(
    () =>
      ovfProperties(
        `<Environment xmlns="${ns}"><PropertySection><Property key="a"/></PropertySection></Environment>`,
        'x',
      ),
    /Property 1 of the PropertySection lacks oe:value/,
  );
  assert.throws(() => ovfProperties('<Other/>', 'x'), /the document element is <Other>, not an OVF <Environment>/);
});

test('network-config that is not base64 YAML with a network key is ignored with a warning, as cloud-init ignores it', () => {
  const ns = 'http://schemas.dmtf.org/ovf/environment/1';
  const env = readOvfEnvironment(
    `<Environment xmlns:oe="${ns}"><PropertySection><Property oe:key="network-config" oe:value="bm90IHlhbWw6IFs="/></PropertySection></Environment>`,
    'x',
    log,
    true,
  );
  assert.equal('network-config' in env.metadata, false);
});

async function crawlImage(t: TestContext, image: string) {
  const ctx: CrawlContext = {
    platform: new LinuxPlatform({ root: tempDir(t), log }),
    log,
    kernelCmdline: '',
    dmi: {},
    config: {},
    finder: new ImageFilesFinder([image], log),
    settings: {},
  };
  assert.equal(await ovfSource.detect(ctx), true, 'detect() finds the environment ISO');
  return ovfSource.crawl(ctx);
}

test("a real ISO 9660 image written by kiln's writer (label OVF ENV, Joliet and Rock Ridge) is read through the device reader", async (t) => {
  const image = join(tempDir(t), 'ovf.iso');
  writeFileSync(
    image,
    writeIso9660([{ path: 'ovf-env.xml', data: readFileSync(ENV) }], { label: 'OVF ENV', time: new Date(0) }),
  );
  const data = await crawlImage(t, image);
  assert.equal(data.instanceId, 'iid-ovf-web');
  assert.equal(Buffer.from(data.userData ?? []).toString(), '#cloud-config\nruncmd: [echo ovf]\n');
  assert.equal(data.subplatform, 'ovf (iso)');
});

test('an ISO made by genisoimage with a plain ISO 9660 name (OVF_ENV.XML, no Joliet or Rock Ridge) is read too', async (t) => {
  if (!need(t, hasCommand('genisoimage'), 'genisoimage is not installed')) return;
  const dir = join(tempDir(t), 'd');
  mkdirSync(dir);
  writeFileSync(join(dir, 'OVF_ENV.XML'), readFileSync(ENV));
  const image = join(tempDir(t), 'g.iso');
  const r = spawnSync('genisoimage', ['-quiet', '-output', image, '-volid', 'OVFENV', dir], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal((await crawlImage(t, image)).localHostname, 'ovfweb');
});

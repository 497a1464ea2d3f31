// The small XML reader: namespaces, entities, CDATA, comments; refusals of DTDs and malformed documents.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { childrenNamed, escapeXmlText, parseXml, XmlError } from '../../src/util/xml-reader';

test('namespaces resolve by prefix and default, scoped to the element that declares them', () => {
  const root = parseXml(
    `<?xml version="1.0" encoding="utf-8"?>
<!-- a comment -->
<ns0:Environment xmlns:ns0="urn:a" xmlns="urn:default">
  <Plain attr='1'>x</Plain>
  <b:Inner xmlns:b="urn:b"><b:Leaf/></b:Inner>
</ns0:Environment>`,
    'doc',
  );
  assert.equal(root.local, 'Environment');
  assert.equal(root.ns, 'urn:a');
  assert.equal(root.children.length, 2);
  assert.equal(root.children[0]?.ns, 'urn:default');
  assert.equal(root.children[0]?.attributes.attr, '1');
  assert.equal(childrenNamed(root, 'urn:b', 'Inner').length, 1);
  assert.equal(childrenNamed(root, 'urn:b', 'Inner')[0]?.children[0]?.ns, 'urn:b');
  assert.throws(() => parseXml('<a><b:c/></a>', 'doc'), /prefix 'b' of b:c is not declared/);
});

test('text: entities, character references, CDATA and CRLF as XML 1.0 says', () => {
  const root = parseXml('<a>1 &lt; 2 &amp;&amp; &#x41;&#66; <![CDATA[<raw & text>]]>\r\nend</a>', 'doc');
  assert.equal(root.text, '1 < 2 && AB <raw & text>\nend');
  assert.throws(() => parseXml('<a>&nbsp;</a>', 'doc'), /unknown entity &nbsp;/);
  assert.throws(() => parseXml('<a>fish & chips</a>', 'doc'), /bare '&'/);
});

test('malformed documents and DTDs are refused with the document named', () => {
  const bad: Array<[string, RegExp]> = [
    ['', /empty/],
    ['<a>', /not closed/],
    ['<a></b>', /expected <\/a> to close <a>/],
    ['<a x="1" x="2"/>', /appears twice/],
    ['<a/><b/>', /content after the root/],
    ['<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>', /document type declarations are refused/],
    ['<a x=1/>', /quoted value/],
  ];
  for (const [doc, re] of bad) {
    assert.throws(
      () => parseXml(doc, 'ovf-env.xml'),
      (err: unknown) =>
        err instanceof XmlError && /^ovf-env\.xml: not usable XML/.test(err.message) && re.test(err.message),
      doc,
    );
  }
  assert.throws(() => parseXml('<a>'.repeat(100) + '</a>'.repeat(100), 'deep'), /nested deeper than 64/);
});

test('escapeXmlText escapes what Python xml.sax.saxutils.escape escapes', () => {
  assert.equal(escapeXmlText(`a<b>&"c'`), `a&lt;b&gt;&amp;"c'`);
});

// The network fixture corpus: every case's input, through kiln's parser and each renderer, gives the expected files.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rendererConfigFor } from '../../src/net/distro-renderer-configs';
import { parseNetworkInput } from '../../src/net/parse-network-config';
import { RENDERERS } from '../../src/net/renderers';
import { distroFor, loadCases } from './fixture-cases';

const cases = loadCases();

test('the corpus is not empty and every case has expected output', () => {
  assert.ok(cases.length >= 15, `only ${cases.length} cases`);
  for (const c of cases) assert.ok(c.renderers.length > 0, `${c.name} has no expected/ folder`);
});

for (const c of cases) {
  for (const renderer of c.renderers) {
    test(`${c.name} → ${renderer}`, () => {
      const macs = new Map(Object.entries(c.macs).map(([name, mac]) => [mac.toLowerCase(), name]));
      const ns = parseNetworkInput(c.kind, c.load(), { macs, renderer });
      const cfg = rendererConfigFor(distroFor(c, renderer), renderer);
      if (renderer === 'netplan') cfg.features = ['dhcp-use-domains', 'ipv6-mtu'];
      const got = new Map(RENDERERS[renderer].render(ns, cfg).map((f) => [f.path, f.content]));
      const want = c.expected(renderer);
      assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort(), 'the set of files written');
      for (const [path, content] of want) assert.equal(got.get(path), content, `content of ${path}`);
    });
  }
}

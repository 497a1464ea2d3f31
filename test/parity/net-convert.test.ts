// Parity: every network fixture through Debian's real `cloud-init devel net-convert` (in a chroot) and through kiln;
// the files must match, byte for byte (YAML: by meaning), except where net-convert-allowed.ts says why not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { rendererConfigFor } from '../../src/net/distro-renderer-configs';
import { parseNetworkInput } from '../../src/net/parse-network-config';
import { RENDERERS } from '../../src/net/renderers';
import { copyRootfs, type DebianSuite } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { distroFor, loadCases } from '../net/fixture-cases';
import { ALLOWED_RENDER_DIFFERENCES, applyAllowed } from './net-convert-allowed';
import { oracleNetConvert } from './net-convert-oracle';

/**
 * The cloud-init every renderer is compared with: Debian 13's 25.1, the reference (docs/compatibility.md). Every
 * renderer and every input conversion of the cases follows it; Debian 12's 22.4 is no longer an oracle here (each
 * renderer was moved from it to 25.1 in its own commit, with the changes named in docs/network.md).
 */
const ORACLE: DebianSuite = 'trixie';

test('kiln and cloud-init net-convert write the same files for every fixture', async (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs root, unshare, chroot and debootstrap for the Debian cloud-init rootfs',
    )
  )
    return;
  const allowedUsed = new Set<number>();
  const cases = loadCases();
  const suite = ORACLE;
  const root = copyRootfs(tempDir(t, `kiln-net-parity-${suite}-`), { suite });
  for (const { c, renderer, files: theirs } of oracleNetConvert(root, cases)) {
    await t.test(`${c.name} → ${renderer} (${suite})`, () => {
      const macs = new Map(Object.entries(c.macs).map(([name, mac]) => [mac.toLowerCase(), name]));
      const ns = parseNetworkInput(c.kind, c.load(), { macs, renderer });
      const cfg = rendererConfigFor(distroFor(c, renderer), renderer);
      if (renderer === 'netplan') cfg.features = ['dhcp-use-domains', 'ipv6-mtu'];
      // Deliberate: kiln's networkd output adds .netdev files for bonds, bridges and VLANs and the Bond=/Bridge=/
      // VLAN= lines that attach members (cloud-init creates no virtual devices under networkd). Compared here with that
      // switched off; test/net/fixtures checks the full output.
      if (renderer === 'networkd') cfg.networkdNetdevs = false;
      const kiln = new Map(RENDERERS[renderer].render(ns, cfg).map((f) => [f.path, f.content]));
      // A file cloud-init did not write is excused by an entry that turns its absence ('') into kiln's file.
      const excused = new Map(theirs);
      for (const path of kiln.keys())
        if (!excused.has(path) && applyAllowed(suite, c.name, renderer, path, '', new Set()) !== '')
          excused.set(path, '');
      assert.deepEqual([...kiln.keys()].sort(), [...excused.keys()].sort(), 'the same set of files');
      for (const [path, text] of excused) {
        const want = applyAllowed(suite, c.name, renderer, path, text, allowedUsed);
        const got = kiln.get(path) as string;
        if (path.endsWith('.yaml')) {
          // YAML by meaning (PyYAML may use anchors for shared objects); and the header comment by text.
          assert.deepEqual(
            parseYaml(got, { version: '1.1' }),
            parseYaml(want, { version: '1.1', merge: true }),
            `${path} (as YAML)`,
          );
          assert.equal(leadingComments(got), leadingComments(want), `${path} header`);
        } else assert.equal(got, want, path);
      }
    });
  }
  for (const [i, a] of ALLOWED_RENDER_DIFFERENCES.entries()) {
    assert.ok(
      allowedUsed.has(i),
      `allow-list entry for ${a.oracle}'s ${a.case}/${a.renderer} ${a.path} no longer needed: cloud-init's output already matches, or no case of ${a.renderer} is compared with ${a.oracle}`,
    );
  }
});

function leadingComments(text: string): string {
  return text
    .split('\n')
    .filter((_line, i, all) => all.slice(0, i + 1).every((x) => x.startsWith('#') || x === ''))
    .join('\n');
}

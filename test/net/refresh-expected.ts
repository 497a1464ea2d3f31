// Rewrites the expected/ files of the network fixture corpus from cloud-init 25.1's net-convert (in the trixie
// rootfs), the allow-list applied: run by `node test/net/refresh-expected.mjs [case…] [renderer…]` (none: all)
// after adding a case or when the reference changes, then read the diff. Not a test: the parity test checks kiln
// against the same oracle.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ALLOWED_RENDER_DIFFERENCES, applyAllowed } from '../parity/net-convert-allowed';
import { oracleNetConvert } from '../parity/net-convert-oracle';
import { copyRootfs } from '../helpers/debian-rootfs';
import { removeTree } from '../helpers/overlay-copy';
import { loadCases, type NetCase } from './fixture-cases';

const ALL_RENDERERS = ['eni', 'netplan', 'network-manager', 'networkd', 'sysconfig'] as const;

/**
 * networkd output of a case with bonds, bridges or VLANs carries kiln's own .netdev files: those are kept as they are.
 */
function hasVirtualDevices(c: NetCase): boolean {
  return /\b(bonds|bridges|vlans):|type:\s*(bond|bridge|vlan)\b/.test(readFileSync(c.input, 'utf8'));
}

function sameYaml(a: string, b: string): boolean {
  try {
    return (
      JSON.stringify(parseYaml(a, { version: '1.1', merge: true })) ===
      JSON.stringify(parseYaml(b, { version: '1.1', merge: true }))
    );
  } catch {
    return false;
  }
}

export function refreshExpected(only: readonly string[]): void {
  const renderers = ALL_RENDERERS.filter((r) => only.includes(r));
  const names = only.filter((n) => !(ALL_RENDERERS as readonly string[]).includes(n));
  const cases = loadCases()
    .filter((c) => names.length === 0 || names.includes(c.name))
    // A new case has no expected/ yet: it gets every renderer's.
    .map((c) => ({
      ...c,
      renderers: (c.renderers.length ? c.renderers : [...ALL_RENDERERS]).filter(
        (r) => renderers.length === 0 || renderers.includes(r),
      ),
    }));
  const scratch = mkdtempSync(join(tmpdir(), 'kiln-refresh-expected-'));
  const root = copyRootfs(scratch, { suite: 'trixie' });
  try {
    const used = new Set<number>();
    for (const { c, renderer, files } of oracleNetConvert(root, cases)) {
      const dir = join(c.dir, 'expected', renderer);
      // A case's renderers are every renderer when it had no expected/ yet: what exists on disk is what it had.
      const had = existsSync(dir);
      if (renderer === 'networkd' && hasVirtualDevices(c) && had) {
        console.log(`kept ${c.name}/networkd: kiln adds .netdev files there (update by hand)`);
        continue;
      }
      const old = had ? c.expected(renderer) : new Map<string, string>();
      rmSync(dir, { recursive: true, force: true });
      for (const [path, text] of files) {
        const want = applyAllowed('trixie', c.name, renderer, path, text, used);
        const previous = old.get(path);
        // kiln's YAML layout is its own; an unchanged meaning keeps the file as it was.
        const content = path.endsWith('.yaml') && previous !== undefined && sameYaml(previous, want) ? previous : want;
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), content);
      }
      console.log(`wrote ${c.name}/${renderer}: ${files.size} file(s)`);
    }
    for (const [i, a] of ALLOWED_RENDER_DIFFERENCES.entries())
      if (a.oracle === 'trixie' && !used.has(i))
        console.log(`allow-list entry ${a.case}/${a.renderer} ${a.path} changed nothing`);
  } finally {
    removeTree(scratch);
  }
}

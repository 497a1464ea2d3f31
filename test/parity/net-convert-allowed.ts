// Where kiln's renderers deliberately differ from cloud-init 25.1's net-convert, each entry with its reason. An
// entry names the case, renderer and file and rewrites cloud-init's file into what kiln writes, so any other
// difference still fails; the parity test fails on an entry that excused nothing.
import type { RendererName } from '../../src/net/renderer';
import type { DebianSuite } from '../helpers/debian-rootfs';

export interface AllowedRenderDifference {
  /** The oracle whose output it excuses: trixie's cloud-init 25.1 or bookworm's 22.4. */
  oracle: DebianSuite;
  /** A case name, or '*' for any case. */
  case: string;
  renderer: RendererName;
  path: string;
  why: string;
  fix(cloudInit: string): string;
}

export const ALLOWED_RENDER_DIFFERENCES: AllowedRenderDifference[] = [
  {
    oracle: 'bookworm',
    case: '*',
    renderer: 'eni',
    path: '/etc/network/interfaces.d/50-cloud-init',
    why: "22.4 writes the interface's DNS dict as a Python repr (`dns {'nameservers': …}`), a line ifupdown cannot read; kiln leaves it out (the dns-nameservers/dns-search lines carry it)",
    fix: (t) => t.replace(/^ {4}dns \{.*\n/m, ''),
  },
  ...(
    [
      ['eni', '/etc/network/interfaces.d/50-cloud-init', (t: string) => t.replace(/(gw 10\.60\.0\.254)( \|\| true)/g, '$1 metric 200$2')],
      ['networkd', '/etc/systemd/network/10-cloud-init-eth0.network', (t: string) => t.replace('Gateway=10.60.0.254\n\n', 'Gateway=10.60.0.254\n\nMetric=200\n\n')],
      ['sysconfig', '/etc/sysconfig/network-scripts/route-eth0', (t: string) => `${t}METRIC0=200\n`],
    ] as const
  ).map(([renderer, path, fix]) => ({
    oracle: 'bookworm' as const,
    case: 'v2-routes-metric',
    renderer: renderer as RendererName,
    path,
    why: "22.4 drops the metric of v2 routes when translating them for non-netplan renderers; kiln keeps it, as newer cloud-init does",
    fix,
  })),
];

/**
 * cloud-init's TEXT of PATH as ORACLE wrote it, with every entry for the case and renderer applied; USED collects
 * the entries that changed it.
 */
export function applyAllowed(oracle: DebianSuite, caseName: string, renderer: RendererName, path: string, text: string, used: Set<number>): string {
  let want = text;
  ALLOWED_RENDER_DIFFERENCES.forEach((a, i) => {
    if (a.oracle !== oracle || (a.case !== caseName && a.case !== '*') || a.renderer !== renderer || a.path !== path) return;
    const fixed = a.fix(want);
    if (fixed !== want) used.add(i);
    want = fixed;
  });
  return want;
}

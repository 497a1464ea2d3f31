// Runs Debian's real `cloud-init devel net-convert` over the network fixture corpus in a chroot of the cached
// rootfs (trixie: cloud-init 25.1, the reference; bookworm: 22.4), once for every case and renderer, and reads back
// what it wrote.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { RendererName } from '../../src/net/renderer';
import { distroFor, type NetCase } from '../net/fixture-cases';

export interface OracleRun {
  c: NetCase;
  renderer: RendererName;
  /** Path inside the target (`/etc/…`) → content, as cloud-init wrote it. */
  files: Map<string, string>;
}

/**
 * EC2 has no net-convert kind: cloud-init's own EC2 conversion gives the v2 that is then rendered. Since 24.1 it
 * takes the distro, whose renderer decides whether secondary NICs get policy routing and whose DHCP client finds
 * their gateway; the stand-in has the renderer asked for and no lease, as a chroot without a network has none.
 * 22.4's takes no distro.
 */
const EC2_TO_V2 = `
import inspect, json, sys
from cloudinit import safeyaml
from cloudinit.net import eni, netplan
from cloudinit.net.dhcp import NoDHCPLeaseError
from cloudinit.sources.DataSourceEc2 import convert_ec2_metadata_network_config

class NoLease:
    def dhcp_discovery(self, *args, **kwargs):
        raise NoDHCPLeaseError()

class Distro:
    dhcp_client = NoLease()
    network_renderer = netplan.Renderer(config={}) if sys.argv[3] == "netplan" else eni.Renderer(config={})

metadata, macs_to_nics = json.load(open(sys.argv[1])), json.loads(sys.argv[2])
if "distro" in inspect.signature(convert_ec2_metadata_network_config).parameters:
    v2 = convert_ec2_metadata_network_config(metadata, Distro(), macs_to_nics=macs_to_nics)
else:
    v2 = convert_ec2_metadata_network_config(metadata, macs_to_nics=macs_to_nics)
print(safeyaml.dumps(v2))
`;

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
}

/**
 * net-convert for every case and renderer in ROOT (a private rootfs copy); throws with cloud-init's stderr on failure.
 */
export function oracleNetConvert(root: string, cases: readonly NetCase[]): OracleRun[] {
  const work = join(root, 'tmp/parity');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'ec2-to-v2.py'), EC2_TO_V2);
  const pending: Array<{ c: NetCase; renderer: RendererName; out: string }> = [];
  const script: string[] = ['set -e', 'cd /tmp/parity'];
  for (const c of cases) {
    mkdirSync(join(work, c.name), { recursive: true });
    const inputName = relative(c.dir, c.input);
    copyFileSync(c.input, join(work, c.name, inputName));
    for (const renderer of c.renderers) {
      let input = `${c.name}/${inputName}`;
      let kind: string = c.cliKind;
      let macs = Object.entries(c.macs)
        .map(([n, m]) => `-m ${n},${m}`)
        .join(' ');
      if (c.cliKind === 'ec2') {
        const macsToNics = JSON.stringify(Object.fromEntries(Object.entries(c.macs).map(([n, m]) => [m, n])));
        script.push(
          `python3 ec2-to-v2.py ${input} '${macsToNics}' ${renderer} > ${c.name}/ec2-${renderer}.yaml 2>>net-convert.log`,
        );
        input = `${c.name}/ec2-${renderer}.yaml`;
        kind = 'yaml';
        macs = '';
      }
      const out = `out/${c.name}/${renderer}`;
      script.push(
        `cloud-init devel net-convert -p ${input} -k ${kind} -d ${out} -D ${distroFor(c, renderer)} -O ${renderer} ${macs} 2>>net-convert.log`,
      );
      // With python3-netplan present (as on Debian 13), 25.1 writes netplan's file through netplan's own API, which
      // puts it in the system's /etc/netplan whatever -d says: it is moved to where the other renderers' files are.
      if (renderer === 'netplan')
        script.push(
          `if [ -e /etc/netplan/50-cloud-init.yaml ]; then mkdir -p ${out}/etc/netplan && mv /etc/netplan/50-cloud-init.yaml ${out}/etc/netplan/; fi`,
        );
      pending.push({ c, renderer, out: join(work, out) });
    }
  }
  writeFileSync(join(work, 'run.sh'), `${script.join('\n')}\n`);
  const r = spawnSync(
    'unshare',
    [
      '--uts',
      '--ipc',
      '--mount',
      '--pid',
      '--net',
      '--fork',
      '--kill-child',
      'chroot',
      root,
      'sh',
      '/tmp/parity/run.sh',
    ],
    { encoding: 'utf8', timeout: 600_000 },
  );
  if (r.status !== 0)
    throw new Error(
      `cloud-init net-convert in the chroot failed: ${r.stderr}\n${readIfExists(join(work, 'net-convert.log')).slice(-3000)}`,
    );
  return pending.map(({ c, renderer, out }) => ({
    c,
    renderer,
    files: new Map(walk(out).map((f) => [`/${relative(out, f)}`, readFileSync(f, 'utf8')])),
  }));
}

function readIfExists(p: string): string {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return '';
  }
}

// Reads the network fixture corpus: one folder per case under test/fixtures/net (input, case.json,
// expected/<renderer>/…).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readYaml } from '../../src/config/read-yaml';
import { azureImdsNetworkConfig } from '../../src/sources/azure/imds-network';
import type { NetworkFormat } from '../../src/net/network-format';
import type { InputKind } from '../../src/net/parse-network-config';
import { networkFormatByName } from '../../src/sources/registry';
import type { RendererName } from '../../src/net/renderer';
import { FIXTURES as ALL_FIXTURES } from '../helpers/repo';

export const FIXTURES = join(ALL_FIXTURES, 'net');

export interface NetCase {
  name: string;
  dir: string;
  /** The input file (input.yaml, input.json, input.eni or input.cfg, a VMware cust.cfg). */
  input: string;
  /** kiln's parser kind and net-convert's -k. */
  kind: InputKind | NetworkFormat;
  cliKind: 'yaml' | 'network_data.json' | 'eni' | 'ec2' | 'azure-imds' | 'vmware-imc';
  distro: string;
  /** name → MAC, given to net-convert as -m name,mac. */
  macs: Record<string, string>;
  /** Renderers with an expected/ folder. */
  renderers: RendererName[];
  /** Expected files of RENDERER: path inside the root → content. */
  expected(renderer: RendererName): Map<string, string>;
  /** The parsed input as net-convert reads it. */
  load(): unknown;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
}

/** The distro net-convert is run with for RENDERER: sysconfig needs a sysconfig distro in cloud-init 22.4. */
export function distroFor(c: NetCase, renderer: RendererName): string {
  if (renderer === 'sysconfig' && !/^(rhel|centos|fedora|almalinux|rocky|opensuse|sles)/.test(c.distro)) return 'rhel';
  if (renderer === 'netplan' && !/^(debian|ubuntu)$/.test(c.distro)) return 'debian';
  return c.distro;
}

export function loadCases(): NetCase[] {
  return readdirSync(FIXTURES)
    .filter((n) => statSync(join(FIXTURES, n)).isDirectory())
    .sort()
    .map((name) => {
      const dir = join(FIXTURES, name);
      const meta = existsSync(join(dir, 'case.json'))
        ? (JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8')) as {
            kind?: string;
            distro?: string;
            macs?: Record<string, string>;
          })
        : {};
      const inputName = readdirSync(dir).find((n) => n.startsWith('input.'));
      if (!inputName) throw new Error(`fixture ${name} has no input.* file`);
      const input = join(dir, inputName);
      const ext = inputName.slice('input.'.length);
      const cliKind =
        meta.kind === 'ec2'
          ? 'ec2'
          : meta.kind === 'azure-imds'
            ? 'azure-imds'
            : ext === 'yaml'
              ? 'yaml'
              : ext === 'json'
                ? 'network_data.json'
                : ext === 'cfg'
                  ? 'vmware-imc'
                  : 'eni';
      const kind: InputKind | NetworkFormat | undefined =
        cliKind === 'yaml' || cliKind === 'azure-imds'
          ? 'yaml'
          : cliKind === 'eni'
            ? 'eni'
            : cliKind === 'network_data.json'
              ? 'openstack'
              : networkFormatByName(cliKind);
      if (!kind) throw new Error(`fixture ${name}: no datasource registers the format ${cliKind}`);
      const expDir = join(dir, 'expected');
      const renderers = (existsSync(expDir) ? readdirSync(expDir) : []).sort() as RendererName[];
      return {
        name,
        dir,
        input,
        kind,
        cliKind,
        distro: meta.distro ?? 'debian',
        macs: meta.macs ?? {},
        renderers,
        expected(renderer: RendererName) {
          const root = join(expDir, renderer);
          return new Map(walk(root).map((f) => [`/${relative(root, f)}`, readFileSync(f, 'utf8')]));
        },
        load() {
          const text = readFileSync(input, 'utf8');
          if (cliKind === 'yaml') return readYaml(text, input);
          if (cliKind === 'eni' || cliKind === 'vmware-imc') return text;
          // net-convert's azure-imds: the instance document's network, as the Azure source renders it.
          if (cliKind === 'azure-imds')
            return azureImdsNetworkConfig((JSON.parse(text) as { network?: unknown }).network);
          return JSON.parse(text);
        },
      };
    });
}

// `devel net-convert`: converts one network config file to a renderer's files under a directory, as cloud-init's does.
import { join } from 'node:path';
import { readYaml, YamlError } from '../config/read-yaml';
import { KNOWN_DISTROS, rendererConfigFor } from '../net/distro-renderer-configs';
import type { NetworkState } from '../net/model';
import type { NetworkFormat } from '../net/network-format';
import { parseNetworkInput, type InputKind } from '../net/parse-network-config';
import { RENDERERS, isRendererName } from '../net/renderers';
import { describeError, UsageError } from '../util/errors';
import type { Command } from './command';
import { fsPromises } from '../util/on-demand-builtins';
import { pathUnderRoot } from '../util/paths';
import { azureImdsNetworkConfig } from '../sources/azure/imds-network';
import { networkFormatByName } from '../sources/registry';
import { writeCommandOutput } from './command-output';

const KINDS = ['eni', 'yaml', 'network_data.json', 'ec2', 'azure-imds', 'vmware-imc'];

function registeredFormat(kind: string): NetworkFormat {
  const format = networkFormatByName(kind);
  if (!format) throw new UsageError(`-k/--kind ${kind}: no datasource registers this network format`);
  return format;
}

export const develNetConvertCommand: Command = {
  words: ['devel', 'net-convert'],
  summary:
    "convert a network config (v1/v2 yaml, network_data.json, eni, ec2, azure-imds, vmware-imc) into a renderer's files",
  usage:
    'devel net-convert -p FILE -k eni|yaml|network_data.json|ec2|azure-imds|vmware-imc -d DIR -D DISTRO -O eni|netplan|networkd|sysconfig|network-manager [-m name,mac ...]',
  faces: ['kiln', 'cloud-init'],
  positional: [0, 0],
  flags: {
    string: ['network-data', 'kind', 'directory', 'distro', 'output-kind', 'mac'],
    boolean: [],
    repeatable: ['mac'],
    alias: { p: 'network-data', k: 'kind', d: 'directory', D: 'distro', O: 'output-kind', m: 'mac' },
    help: [
      '-p, --network-data FILE  the network configuration to read',
      '-k, --kind KIND          eni, yaml, network_data.json, ec2 (kiln: IMDS network tree as JSON), azure-imds (the IMDS instance JSON) or vmware-imc (cust.cfg)',
      '-d, --directory DIR      directory to place output in',
      '-D, --distro DISTRO      distro whose file layout to use (debian, ubuntu, rhel, opensuse …)',
      '-O, --output-kind KIND   eni, netplan, networkd, sysconfig or network-manager',
      '-m, --mac NAME,MAC       interface name for a MAC (repeatable)',
      '--debug                  print the parsed model to stderr',
    ],
  },
  async run(ctx, args) {
    const f = args.flags;
    const file = f['network-data'] as string | undefined;
    const kind = f.kind as string | undefined;
    const directory = f.directory as string | undefined;
    const distro = f.distro as string | undefined;
    const output = f['output-kind'] as string | undefined;
    if (!file) throw new UsageError('-p/--network-data is required');
    if (!kind || !KINDS.includes(kind)) throw new UsageError(`-k/--kind must be one of ${KINDS.join(', ')}`);
    if (!directory) throw new UsageError('-d/--directory is required');
    if (!distro || !KNOWN_DISTROS.includes(distro))
      throw new UsageError(`-D/--distro must be one of ${KNOWN_DISTROS.join(', ')}`);
    if (!output || !isRendererName(output))
      throw new UsageError(`-O/--output-kind must be one of ${Object.keys(RENDERERS).join(', ')}`);
    const macs = new Map<string, string>();
    for (const item of (f.mac as string[] | undefined) ?? []) {
      const comma = item.indexOf(',');
      if (comma < 0) throw new UsageError(`-m/--mac takes NAME,MAC, not '${item}'`);
      macs.set(item.slice(comma + 1).toLowerCase(), item.slice(0, comma));
    }
    const text = await fsPromises().readFile(file, 'utf8');
    // ec2 and vmware-imc are formats their datasources register; the others are net/'s own.
    const inputKind: InputKind | NetworkFormat =
      kind === 'eni'
        ? 'eni'
        : kind === 'yaml' || kind === 'azure-imds'
          ? 'yaml'
          : kind === 'network_data.json'
            ? 'openstack'
            : registeredFormat(kind);
    let input: unknown = text;
    try {
      if (kind === 'yaml') input = readYaml(text, file);
      else if (kind !== 'eni' && kind !== 'vmware-imc') input = JSON.parse(text);
      // As cloud-init: the instance document's `network`, rendered the way the Azure source renders it.
      if (kind === 'azure-imds') input = azureImdsNetworkConfig((input as Record<string, unknown> | null)?.network);
    } catch (err) {
      if (err instanceof YamlError) throw err;
      throw new UsageError(`${file}: not valid ${kind === 'yaml' ? 'YAML' : 'JSON'}: ${describeError(err)}`);
    }
    // vmware-imc names NICs by their cust.cfg section, as cloud-init's net-convert does (it ignores -m for this kind).
    const ns = parseNetworkInput(
      inputKind,
      input,
      kind === 'vmware-imc'
        ? { key: file }
        : { macs, key: kind === 'yaml' || kind === 'azure-imds' ? 'network' : kind, renderer: output },
    );
    if (ctx.debug && f.directory !== undefined) ctx.io.err(`Internal State\n${describeState(ns)}\n`);
    if (output !== 'netplan') for (const w of ns.warnings) ctx.logger.for('network_state.py').warn(w);
    const cfg = rendererConfigFor(distro, output);
    if (output === 'netplan') cfg.features = ['dhcp-use-domains', 'ipv6-mtu'];
    // As cloud-init's: sysconfig merges into the resolv.conf and control file already under the directory.
    if (output === 'sysconfig') {
      cfg.existingResolvConf = await readIfExists(pathUnderRoot(join(directory), '/etc/resolv.conf'));
      if (cfg.control?.endsWith('network'))
        cfg.existingControl = await readIfExists(pathUnderRoot(join(directory), cfg.control));
    }
    const files = RENDERERS[output].render(ns, cfg);
    ctx.io.err(
      `Read input format '${kind}' from '${file}'.\nWrote output format '${output}' to '${directory.endsWith('/') ? directory : `${directory}/`}'\n\n`,
    );
    for (const f of files)
      await writeCommandOutput(ctx, pathUnderRoot(join(directory), f.path), f.content, {
        mode: f.mode ?? 0o644,
        makeParents: true,
      });
    return 0;
  },
};

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await fsPromises().readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function describeState(ns: NetworkState): string {
  return JSON.stringify(
    { version: ns.version, interfaces: Object.fromEntries(ns.interfaces), routes: ns.routes, dns: ns.dns },
    null,
    2,
  );
}

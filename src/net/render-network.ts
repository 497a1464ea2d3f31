// Renders the model into the target root through the Platform: picks the renderer as cloud-init does, writes its files.
import type { Platform } from '../platform/platform';
import { rendererConfigFor, distroFamily } from './distro-renderer-configs';
import type { NetworkState } from './model';
import { NetworkConfigError } from './net-error';
import type { RendererName } from './renderer';
import { DEFAULT_RENDERER_PRIORITY, RENDERERS, isRendererName } from './renderers';

const SYSCONFIG_DISTROS = [
  'almalinux',
  'centos',
  'cloudlinux',
  'eurolinux',
  'fedora',
  'miraclelinux',
  'openeuler',
  'openmandriva',
  'rhel',
  'rocky',
  'suse',
  'virtuozzo',
];

async function hasProgram(p: Platform, name: string, dirs: string[]): Promise<boolean> {
  for (const d of dirs) if (await p.exists(`${d}/${name}`)) return true;
  return false;
}

/** initscripts' ifup/ifdown and their config (cloud-init's `available_sysconfig`). */
async function hasSysconfigScripts(p: Platform): Promise<boolean> {
  for (const prog of ['ifup', 'ifdown']) if (!(await hasProgram(p, prog, ['/sbin', '/usr/sbin']))) return false;
  return (
    (await p.exists('/etc/sysconfig/network-scripts/network-functions')) || (await p.exists('/etc/sysconfig/config'))
  );
}

/**
 * NetworkManager's ifcfg-rh plugin, which reads ifcfg files: libnm-settings-plugin-ifcfg-rh.so in
 * /usr/lib…/NetworkManager/VERSION/ (25.1's `available_nm_ifcfg_rh`).
 */
async function hasNetworkManagerIfcfgRh(p: Platform): Promise<boolean> {
  const list = (dir: string) => p.listDir(dir).catch(() => [] as string[]);
  for (const lib of (await list('/usr')).filter((d) => d.startsWith('lib'))) {
    const nm = `/usr/${lib}/NetworkManager`;
    for (const version of await list(nm)) {
      if (!version.startsWith('.') && (await p.exists(`${nm}/${version}/libnm-settings-plugin-ifcfg-rh.so`)))
        return true;
    }
  }
  return false;
}

/** Whether RENDERER's tools are in the target root (cloud-init's `available()` per renderer). */
export async function rendererAvailable(p: Platform, renderer: RendererName, distro: string): Promise<boolean> {
  switch (renderer) {
    case 'eni':
      for (const prog of ['ifquery', 'ifup', 'ifdown'])
        if (!(await hasProgram(p, prog, ['/sbin', '/usr/sbin']))) return false;
      return p.exists('/etc/network/interfaces');
    case 'netplan':
      return hasProgram(p, 'netplan', ['/usr/sbin', '/sbin']);
    case 'networkd':
      return (
        (await hasProgram(p, 'ip', ['/usr/sbin', '/bin'])) && (await hasProgram(p, 'systemctl', ['/usr/sbin', '/bin']))
      );
    case 'sysconfig': {
      const variant = distroFamily(distro) === 'suse' ? 'suse' : distro;
      if (!SYSCONFIG_DISTROS.includes(variant)) return false;
      return (await hasSysconfigScripts(p)) || (await hasNetworkManagerIfcfgRh(p));
    }
    case 'network-manager':
      return (
        (await p.exists('/etc/NetworkManager/NetworkManager.conf')) &&
        (await hasProgram(p, 'nmcli', ['/usr/bin', '/bin', '/usr/sbin', '/sbin']))
      );
  }
}

/** The first available renderer of PRIORITY (system_info.network.renderers, else cloud-init's default). */
export async function selectRenderer(p: Platform, distro: string, priority?: string[]): Promise<RendererName> {
  const order = priority ?? DEFAULT_RENDERER_PRIORITY;
  order.forEach((name, i) => {
    if (!isRendererName(name))
      throw new NetworkConfigError(
        `system_info.network.renderers[${i}]`,
        `unknown renderer '${name}'; expected one of ${Object.keys(RENDERERS).join(', ')}`,
      );
  });
  for (const name of order as RendererName[]) if (await rendererAvailable(p, name, distro)) return name;
  throw new NetworkConfigError(
    'system_info.network.renderers',
    `none of ${order.join(', ')} is available in ${p.root} (their tools or config files are missing)`,
  );
}

export interface RenderOptions {
  distro: string;
  /** system_info.network.renderers. */
  renderers?: string[];
  /** Use this renderer without checking the root for its tools. */
  renderer?: RendererName;
}

/** Writes the files for MODEL under the platform's root; returns the renderer used and the paths written. */
export async function renderNetwork(
  p: Platform,
  model: NetworkState,
  opts: RenderOptions,
): Promise<{ renderer: RendererName; files: string[]; warnings: string[] }> {
  const renderer = opts.renderer ?? (await selectRenderer(p, opts.distro, opts.renderers));
  const cfg = rendererConfigFor(opts.distro, renderer);
  if (renderer === 'sysconfig') {
    cfg.existingResolvConf = await p.readTextIfExists('/etc/resolv.conf');
    if (cfg.control?.endsWith('network')) cfg.existingControl = await p.readTextIfExists(cfg.control);
  }
  const files = RENDERERS[renderer].render(model, cfg);
  const passwd = (await p.readTextIfExists('/etc/passwd')) ?? '';
  for (const f of files) {
    // cloud-init writes 0644 unless a renderer says otherwise, and gives networkd files to systemd-network.
    const user = f.owner?.split(':')[0];
    const owned = user !== undefined && passwd.split('\n').some((l) => l.startsWith(`${user}:`));
    await p.writeFile(f.path, f.content, { mode: f.mode ?? 0o644, ...(owned ? { owner: f.owner as string } : {}) });
  }
  const warnings = renderer === 'netplan' ? [] : model.warnings;
  return { renderer, files: files.map((f) => f.path), warnings };
}

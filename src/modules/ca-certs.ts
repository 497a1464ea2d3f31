// cc_ca_certs: optionally removes the default CAs, adds ca_certs.trusted to the system store, and refreshes it.
import { posix } from 'node:path';
import { cfgList } from './support/config-values';
import { type CloudConfig, type Module, type ModuleContext, ModuleError } from './module';

export interface CaPaths {
  certPath: string;
  certFilename: string;
  certConfig: string | null;
  systemPath: string;
  updateCmd: string[];
}

const DEFAULT: CaPaths = {
  certPath: '/usr/share/ca-certificates/',
  certFilename: 'cloud-init-ca-certs.crt',
  certConfig: '/etc/ca-certificates.conf',
  systemPath: '/etc/ssl/certs/',
  updateCmd: ['update-ca-certificates'],
};
const RHEL: CaPaths = {
  certPath: '/usr/share/pki/ca-trust-source/',
  certFilename: 'anchors/cloud-init-ca-certs.crt',
  certConfig: null,
  systemPath: '/etc/pki/ca-trust/',
  updateCmd: ['update-ca-trust'],
};

/** Newer upstream's SUSE store: anchors under /usr/share/pki/trust, refreshed by SUSE's update-ca-certificates. */
const SUSE: CaPaths = {
  certPath: '/usr/share/pki/trust/',
  certFilename: 'anchors/cloud-init-ca-certs.crt',
  certConfig: null,
  systemPath: '/etc/pki/trust/',
  updateCmd: ['update-ca-certificates'],
};

/** The distro names newer cloud-init lists for ca_certs and the store each uses (22.4 had rhel only). */
const OVERRIDES: Record<string, CaPaths> = {
  rhel: RHEL,
  fedora: RHEL,
  almalinux: RHEL,
  cloudlinux: RHEL,
  opensuse: SUSE,
  'opensuse-leap': SUSE,
  'opensuse-tumbleweed': SUSE,
  'opensuse-microos': SUSE,
  sles: SUSE,
  sle_hpc: SUSE,
  'sle-micro': SUSE,
};

/** Debian, Ubuntu and Alpine share the default (update-ca-certificates) layout. */
export function pathsFor(distroName: string): CaPaths {
  return OVERRIDES[distroName] ?? DEFAULT;
}

async function deleteDirContents(ctx: ModuleContext, dir: string): Promise<void> {
  let names: string[];
  try {
    names = await ctx.platform.listDir(dir);
  } catch {
    return;
  }
  for (const n of names) await ctx.platform.remove(posix.join(dir, n), { recursive: true });
}

async function updateCertConfig(ctx: ModuleContext, p: CaPaths): Promise<void> {
  if (p.certConfig === null) return;
  const orig = (await ctx.platform.readTextIfExists(p.certConfig)) ?? '';
  let out: string;
  if (orig.length === 0) out = `${p.certFilename}\n`;
  else {
    // Blank lines in ca-certificates.conf make later entries be ignored, so the kept text is right-stripped.
    const kept = orig.split(/\r?\n/).filter((l, i, all) => !(i === all.length - 1 && l === '') && l !== p.certFilename).join('\n');
    out = `${kept.replace(/\s+$/, '')}\n${p.certFilename}\n`;
  }
  await ctx.platform.writeFile(p.certConfig, out);
}

export const caCerts: Module = {
  name: 'ca_certs',
  stage: 'init',
  frequency: 'once-per-instance',
  distros: ['alpine', 'debian', 'ubuntu', ...Object.keys(OVERRIDES)],
  activateBy: ['ca_certs', 'ca-certs'],
  async run(ctx: ModuleContext, cfg: CloudConfig): Promise<void> {
    if ('ca-certs' in cfg) ctx.log.warn("DEPRECATION: key 'ca-certs' is now deprecated. Use 'ca_certs' instead.");
    else if (!('ca_certs' in cfg)) {
      ctx.log.debug("Skipping module named ca_certs, no 'ca_certs' key in configuration");
      return;
    }
    if ('ca-certs' in cfg && 'ca_certs' in cfg) ctx.log.warn('Found both ca-certs (deprecated) and ca_certs config keys. Ignoring ca-certs.');
    const raw = 'ca_certs' in cfg ? cfg.ca_certs : cfg['ca-certs'];
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ModuleError('ca_certs', "'ca_certs' must be a mapping (remove_defaults, trusted)");
    const c = raw as Record<string, unknown>;
    const p = pathsFor(ctx.distro.name);
    const removeKey = 'remove-defaults' in c ? 'remove-defaults' : 'remove_defaults';
    if (removeKey === 'remove-defaults') ctx.log.warn("DEPRECATION: key 'ca-certs.remove-defaults' is now deprecated. Use 'ca_certs.remove_defaults' instead.");
    if (c[removeKey] === true) {
      ctx.log.debug('Removing default certificates');
      await deleteDirContents(ctx, p.certPath);
      await deleteDirContents(ctx, p.systemPath);
      if (p.certConfig !== null) await ctx.platform.writeFile(p.certConfig, '', { mode: 0o644 });
      if (ctx.distro.name === 'debian' || ctx.distro.name === 'ubuntu') {
        await ctx.platform.run(['debconf-set-selections', '-'], { input: 'ca-certificates ca-certificates/trust_new_crts select no' });
      }
    }
    const trusted = cfgList(c, 'trusted');
    if (trusted && trusted.length > 0) {
      ctx.log.debug(`Adding ${trusted.length} certificates`);
      await ctx.platform.writeFile(posix.join(p.certPath, p.certFilename), trusted.join('\n'), { mode: 0o644 });
      await updateCertConfig(ctx, p);
    }
    ctx.log.debug('Updating certificates');
    const r = await ctx.platform.run(p.updateCmd, { allowFailure: true });
    await ctx.output(r.stdout + r.stderr);
    if (r.code !== 0) throw new ModuleError('ca_certs', `${p.updateCmd.join(' ')} exited with code ${r.code}: ${r.stderr.trim()}`);
  },
};

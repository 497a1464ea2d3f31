// cc_ca_certs as cloud-init 25.1: optionally disables or removes the default CAs, writes each ca_certs.trusted
// certificate to a file of its own in the distro's local store, and refreshes the store.
import { posix } from 'node:path';
import { type Module, type ModuleContext, ModuleError } from './module';
import { configModule } from './support/config-module';
import { describeError } from '../util/errors';

export interface CaPaths {
  /** The system store remove_defaults empties (rhel, photon); null where the defaults are disabled instead. */
  certPath: string | null;
  /** Where the trusted certificates are written. */
  localPath: string;
  /** Each certificate's file name under localPath; {cert_index} counts from 1. */
  certFilename: string;
  /** The store's list of enabled CAs, whose entries remove_defaults turns off with '!'; null where there is none. */
  certConfig: string | null;
  updateCmd: string[];
}

const DEFAULT: CaPaths = {
  certPath: null,
  localPath: '/usr/local/share/ca-certificates/',
  certFilename: 'cloud-init-ca-cert-{cert_index}.crt',
  certConfig: '/etc/ca-certificates.conf',
  updateCmd: ['update-ca-certificates'],
};
const RHEL: CaPaths = {
  certPath: '/etc/pki/ca-trust/',
  localPath: '/usr/share/pki/ca-trust-source/',
  certFilename: 'anchors/cloud-init-ca-cert-{cert_index}.crt',
  certConfig: null,
  updateCmd: ['update-ca-trust'],
};
const SUSE: CaPaths = {
  certPath: '/etc/pki/trust/',
  localPath: '/usr/share/pki/trust/',
  certFilename: 'anchors/cloud-init-ca-cert-{cert_index}.crt',
  certConfig: null,
  updateCmd: ['update-ca-certificates'],
};

/** 25.1's DISTRO_OVERRIDES, by distro name; every other listed distro (Debian, Ubuntu, Alpine) takes DEFAULT. */
const OVERRIDES: Record<string, CaPaths> = {
  aosc: {
    certPath: '/etc/ssl/certs/',
    localPath: '/etc/ssl/certs/',
    certFilename: 'cloud-init-ca-cert-{cert_index}.pem',
    certConfig: '/etc/ca-certificates/conf.d/cloud-init.conf',
    updateCmd: ['update-ca-bundle'],
  },
  fedora: RHEL,
  rhel: RHEL,
  almalinux: RHEL,
  cloudlinux: RHEL,
  opensuse: SUSE,
  'opensuse-microos': SUSE,
  'opensuse-tumbleweed': SUSE,
  'opensuse-leap': SUSE,
  sle_hpc: SUSE,
  'sle-micro': SUSE,
  sles: SUSE,
  photon: {
    certPath: '/etc/pki/tls/certs/',
    localPath: '/etc/ssl/certs/',
    certFilename: 'cloud-init-ca-cert-{cert_index}.pem',
    certConfig: null,
    updateCmd: ['rehash_ca_certificates.sh'],
  },
};

export function pathsFor(distroName: string): CaPaths {
  return OVERRIDES[distroName] ?? DEFAULT;
}

/** The file certificate INDEX (from 1) is written to. */
function certFile(p: CaPaths, index: number): string {
  return posix.join(p.localPath, p.certFilename.replace('{cert_index}', String(index)));
}

const DISABLED_HEADER = '# Modified by cloud-init to deselect certs due to user-data';

/** disable_system_ca_certs: every entry of the store's list prefixed with '!', under one header line. */
export function disableEntries(text: string): string {
  let header = false;
  const out: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/).slice(0, text.endsWith('\n') ? -1 : undefined)) {
    if (line === DISABLED_HEADER) {
      header = true;
      out.push(line);
    } else if (line === '' || line.startsWith('#') || line.startsWith('!')) out.push(line);
    else {
      if (!header) {
        out.push(DISABLED_HEADER);
        header = true;
      }
      out.push(`!${line}`);
    }
  }
  return `${out.join('\n')}\n`;
}

async function deleteDirContents(ctx: ModuleContext, dir: string): Promise<void> {
  // util.delete_dir_contents lists the folder first: a missing one (or no folder) fails the module, before any
  // certificate is written or the store refreshed.
  const fail = (why: string, cause?: unknown) =>
    new ModuleError('ca_certs', `cannot empty the certificate store ${dir}: ${why}`, { cause });
  if (!(await ctx.platform.exists(dir))) throw fail('no such folder');
  let names: string[];
  try {
    names = await ctx.platform.listDir(dir);
  } catch (err) {
    throw fail(describeError(err), err);
  }
  for (const n of names) await ctx.platform.remove(posix.join(dir, n), { recursive: true });
}

/**
 * disable_default_ca_certs: rhel and photon empty their stores; Alpine, AOSC, Debian and Ubuntu turn the entries off.
 */
async function disableDefaults(ctx: ModuleContext, p: CaPaths): Promise<void> {
  const name = ctx.distro.name;
  if (name === 'rhel' || name === 'photon') {
    if (p.certPath === null) return;
    ctx.log.debug('Deleting system CA certificates');
    await deleteDirContents(ctx, p.certPath);
    await deleteDirContents(ctx, p.localPath);
  } else if (['alpine', 'aosc', 'debian', 'ubuntu'].includes(name)) {
    const text = p.certConfig === null ? undefined : await ctx.platform.readTextIfExists(p.certConfig);
    if (p.certConfig !== null && text) await ctx.platform.writeFile(p.certConfig, disableEntries(text));
    if (name === 'debian' || name === 'ubuntu') {
      await ctx.platform.run(['debconf-set-selections', '-'], {
        input: 'ca-certificates ca-certificates/trust_new_crts select no',
      });
    }
  }
}

const CA_CERTS_READERS = { remove_defaults: 'truthy', 'remove-defaults': 'truthy', trusted: 'list' } as const;

export const caCerts: Module = configModule({
  name: 'ca_certs',
  stage: 'init',
  frequency: 'once-per-instance',
  distros: ['alpine', 'debian', 'ubuntu', ...Object.keys(OVERRIDES)],
  activateBy: ['ca_certs', 'ca-certs'],
  // remove_defaults by Python's truthiness ('no' is true), trusted by get_cfg_option_list (a string is one
  // certificate).
  configKeys: { ca_certs: CA_CERTS_READERS, 'ca-certs': CA_CERTS_READERS },
  async run(ctx, cfg): Promise<void> {
    if ('ca-certs' in cfg)
      ctx.log.deprecated(
        "Key 'ca-certs' is deprecated in 22.1 and scheduled to be removed in 27.1. Use 'ca_certs' instead.",
      );
    else if (!('ca_certs' in cfg)) {
      ctx.log.debug("Skipping module named ca_certs, no 'ca_certs' key in configuration");
      return;
    }
    if ('ca-certs' in cfg && 'ca_certs' in cfg)
      ctx.log.warn('Found both ca-certs (deprecated) and ca_certs config keys. Ignoring ca-certs.');
    const c = cfg.ca_certs ?? cfg['ca-certs'] ?? {};
    const p = pathsFor(ctx.distro.name);
    if ('remove-defaults' in c)
      ctx.log.deprecated(
        "Key 'remove-defaults' is deprecated in 22.1 and scheduled to be removed in 27.1. Use 'remove_defaults' instead.",
      );
    if ('remove_defaults' in c ? c.remove_defaults : c['remove-defaults']) {
      ctx.log.debug('Disabling/removing default certificates');
      await disableDefaults(ctx, p);
    }
    const trusted = c.trusted;
    if (trusted && trusted.length > 0) {
      ctx.log.debug(`Adding ${trusted.length} certificates`);
      for (const [i, cert] of trusted.entries())
        await ctx.platform.writeFile(certFile(p, i + 1), cert, { mode: 0o644 });
    }
    ctx.log.debug('Updating certificates');
    const r = await ctx.platform.run(p.updateCmd, { allowFailure: true });
    await ctx.output(r.stdout + r.stderr);
    if (r.code !== 0)
      throw new ModuleError('ca_certs', `${p.updateCmd.join(' ')} exited with code ${r.code}: ${r.stderr.trim()}`);
  },
});

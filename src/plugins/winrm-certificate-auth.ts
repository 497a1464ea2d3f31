// ConfigWinRMCertificateAuthPlugin: trusts the metadata's client certificate and maps it to the admin user for WinRM
// certificate logons.
import { X509Certificate } from 'node:crypto';
import { processWindowsUserData } from '../userdata/windows-user-data';
import { adminUserName } from './create-user';
import { PluginError, SHARED, type Plugin, type PluginContext, type PluginResult } from './plugin';
import { runWinrm } from './winrm-command';

const PEM = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;

/**
 * cloudbase-init's client certificates: meta admin_cert0, admin_cert1 … joined, else a PEM user data, plus what the
 * source gave.
 */
export async function clientCertificates(ctx: PluginContext): Promise<string[]> {
  const out = [...(ctx.instance?.certificates ?? [])];
  const meta = ctx.instance?.metadata.meta;
  let joined = '';
  if (meta && typeof meta === 'object') {
    const m = meta as Record<string, unknown>;
    for (let i = 0; typeof m[`admin_cert${i}`] === 'string'; i++) joined += m[`admin_cert${i}`] as string;
  }
  if (joined) out.push(joined);
  else if (ctx.instance?.userData) {
    const ud = await processWindowsUserData(ctx.instance.userData);
    if (ud.certificate) out.push(ud.certificate);
  }
  return out;
}

/** The UPN in the certificate's subject alternative name (otherName 1.3.6.1.4.1.311.20.2.3), read without the OS. */
export function upnFromDer(der: Uint8Array): string {
  try {
    const san = new X509Certificate(der).subjectAltName ?? '';
    return /othername:UPN:([^,\s]+)/i.exec(san)?.[1] ?? '';
  } catch {
    return ''; // a certificate that does not parse has no UPN
  }
}

function pemToDer(pem: string): Uint8Array[] {
  return [...pem.matchAll(PEM)].map((m) => Buffer.from((m[1] as string).replace(/\s+/g, ''), 'base64'));
}

export const winrmCertificateAuthPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.windows.winrmcertificateauth.ConfigWinRMCertificateAuthPlugin',
  name: 'ConfigWinRMCertificateAuthPlugin',
  stage: 'main',
  async execute(ctx: PluginContext): Promise<PluginResult> {
    const user = adminUserName(ctx);
    const password = ctx.shared.get(SHARED.adminPassword);
    if (typeof password !== 'string') {
      ctx.log.info(
        'No password for the admin user in this run (CreateUserPlugin or SetUserPasswordPlugin did not run): WinRM certificate mapping skipped',
      );
      return { status: 'done', reboot: false };
    }
    ctx.secret(password);
    const ders = (await clientCertificates(ctx)).flatMap(pemToDer);
    if (ders.length === 0) {
      ctx.log.info('The metadata has no client certificate for WinRM');
      return { status: 'done', reboot: false };
    }
    const run = async (args: string[], what: string, quiet = false) => {
      // Errors built here: the mapping's command line carries the password.
      const r = await runWinrm(ctx, args, [password]);
      if (r.code !== 0 && !quiet)
        throw new PluginError(
          'ConfigWinRMCertificateAuthPlugin',
          `${what} failed (winrm exit ${r.code}): ${(r.stderr || r.stdout).replaceAll(password, '********').trim()}`,
        );
    };
    // Trust first: WinRM refuses a mapping whose issuer certificate is not in the stores.
    const mappings = ders.map((der) => {
      const imported = ctx.windows.importCertificate(der, 'Root');
      const { thumbprint } = imported;
      // CertGetNameStringW's UPN when Windows gives one (wine's does not), else the certificate's own SAN.
      const upn = imported.upn || upnFromDer(der);
      ctx.windows.importCertificate(der, 'TrustedPeople');
      if (!upn)
        throw new PluginError(
          'ConfigWinRMCertificateAuthPlugin',
          `certificate ${thumbprint} has no UPN (subject alternative name otherName UPN), which WinRM maps to a user`,
        );
      return { thumbprint, upn };
    });
    if (!(await ctx.platform.exists('Windows\\System32\\winrm.vbs'))) {
      throw new PluginError(
        'ConfigWinRMCertificateAuthPlugin',
        'WinRM is not installed on this Windows (no System32\\winrm.vbs); the certificates are trusted but not mapped',
      );
    }
    await run(
      ['set', 'winrm/config/service/auth', '@{Certificate="true"}'],
      'enabling WinRM certificate authentication',
    );
    for (const { thumbprint, upn } of mappings) {
      const selector = `winrm/config/service/certmapping?Issuer=${thumbprint}+Subject=${upn}+URI=*`;
      await run(['delete', selector], 'removing the old mapping', true);
      await run(
        ['create', selector, `@{Enabled="true";Password="${password}";UserName="${user}"}`],
        `mapping certificate ${thumbprint} (${upn}) to ${user}`,
      );
      ctx.log.info(`WinRM certificate ${thumbprint} (${upn}) mapped to ${user}`);
    }
    return { status: 'done', reboot: false };
  },
};

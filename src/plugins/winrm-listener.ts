// ConfigWinRMListenerPlugin: WinRM started automatically, HTTPS listener on 5986 with a self-signed certificate,
// optional HTTP, basic auth, firewall rules.
import { adminUserName } from './create-user';
import { PluginError, type Plugin, type PluginContext, type PluginResult } from './plugin';
import { runWinrm } from './winrm-command';

const SERVICE_RUNNING = 4;
const CERT_VALID_DAYS = 3650;

async function ensureListener(ctx: PluginContext, transport: 'HTTP' | 'HTTPS', settings: string): Promise<void> {
  const selector = `winrm/config/Listener?Address=*+Transport=${transport}`;
  const existing = await runWinrm(ctx, ['get', selector]);
  if (existing.code === 0) {
    // As cloudbase-init: an existing listener is replaced, so the certificate and host name are current.
    const del = await runWinrm(ctx, ['delete', selector]);
    if (del.code !== 0)
      throw new PluginError(
        'ConfigWinRMListenerPlugin',
        `winrm delete ${selector} failed (${del.code}): ${del.stderr.trim() || del.stdout.trim()}`,
      );
  }
  const r = await runWinrm(ctx, ['create', selector, settings]);
  if (r.code !== 0)
    throw new PluginError(
      'ConfigWinRMListenerPlugin',
      `winrm create ${selector} failed (${r.code}): ${r.stderr.trim() || r.stdout.trim()}`,
    );
  ctx.log.info(`WinRM ${transport} listener configured`);
}

async function firewall(ctx: PluginContext, name: string, port: number): Promise<void> {
  const netsh = ctx.platform.hostPath('Windows\\System32\\netsh.exe');
  await ctx.platform.run([netsh, 'advfirewall', 'firewall', 'delete', 'rule', `name=${name}`], { allowFailure: true });
  await ctx.platform.run([
    netsh,
    'advfirewall',
    'firewall',
    'add',
    'rule',
    `name=${name}`,
    'dir=in',
    'action=allow',
    'protocol=TCP',
    `localport=${port}`,
  ]);
}

export const winrmListenerPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.windows.winrmlistener.ConfigWinRMListenerPlugin',
  name: 'ConfigWinRMListenerPlugin',
  stage: 'main',
  async execute(ctx: PluginContext): Promise<PluginResult> {
    const https = ctx.conf.boolValue('winrm_configure_https_listener');
    const http = ctx.conf.boolValue('winrm_configure_http_listener');
    const hostname = ctx.windows.computerName().pending;
    // As cloudbase-init's _check_winrm_service: without the service, nothing is done (no certificate made, so a
    // plugin that runs again at every boot does not leave a new certificate and key behind each time) and the
    // plugin runs again at the next boot.
    const state = ctx.windows.serviceState('WinRM');
    if (state === undefined) {
      ctx.log.warn('Cannot configure the WinRM listener as the service is not available');
      return { status: 'next-boot', reboot: false };
    }
    const sc = ctx.platform.hostPath('Windows\\System32\\sc.exe');
    await ctx.platform.run([sc, 'config', 'WinRM', 'start=', 'auto']);
    if (state !== SERVICE_RUNNING)
      await ctx.platform.run([ctx.platform.hostPath('Windows\\System32\\net.exe'), 'start', 'WinRM']);
    // The certificate once the service runs, just before the listener bound to it; when anything after it fails, it
    // and its key go again: the plugin runs again at the next boot and would otherwise leave one more behind each time.
    const certificate = https ? ctx.windows.createSelfSignedCertificate(`CN=${hostname}`, CERT_VALID_DAYS) : undefined;
    try {
      if (certificate) {
        await ensureListener(
          ctx,
          'HTTPS',
          `@{Hostname="${hostname}";CertificateThumbprint="${certificate.thumbprint}"}`,
        );
        await firewall(ctx, 'WinRM HTTPS', 5986);
      }
      if (http) {
        await ensureListener(ctx, 'HTTP', '@{}');
        await firewall(ctx, 'WinRM HTTP', 5985);
      }
      if (ctx.conf.boolValue('winrm_enable_basic_auth')) {
        const r = await runWinrm(ctx, ['set', 'winrm/config/service/auth', '@{Basic="true"}']);
        if (r.code !== 0)
          throw new PluginError(
            'ConfigWinRMListenerPlugin',
            `enabling basic auth failed (${r.code}): ${r.stderr.trim() || r.stdout.trim()}`,
          );
        ctx.log.info(`WinRM basic authentication enabled (for local accounts such as ${adminUserName(ctx)})`);
      }
    } catch (err) {
      if (certificate) {
        ctx.windows.deleteCertificate(certificate.thumbprint, 'MY', certificate.container);
        ctx.log.info(
          `Removed the self-signed certificate ${certificate.thumbprint} and its key again: the plugin runs again at the next boot`,
        );
      }
      throw err;
    }
    return { status: 'done', reboot: false };
  },
};

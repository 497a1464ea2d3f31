// RDPPostCertificateThumbprintPlugin: the RDP listener's certificate thumbprint told to the metadata service, where the
// cloud takes it.
import { DONE, PluginError, type Plugin, type PluginContext, type PluginResult } from './plugin';

const RDP_TCP_KEY = 'SYSTEM\\CurrentControlSet\\Control\\Terminal Server\\WinStations\\RDP-Tcp';
/** Where Remote Desktop Services keeps its self-signed certificate when none is configured. */
const RDP_STORE = 'Remote Desktop';

/**
 * The certificate RDP-Tcp uses: the configured SSLCertificateSHA1Hash, else the newest in LocalMachine\Remote Desktop.
 */
export function rdpCertificateThumbprint(ctx: PluginContext): string | undefined {
  const configured = ctx.windows.regGet('HKLM', RDP_TCP_KEY, 'SSLCertificateSHA1Hash');
  if (configured?.type === 'REG_BINARY' && configured.data.length === 20)
    return Buffer.from(configured.data).toString('hex').toUpperCase();
  return ctx.windows.certificateThumbprints(RDP_STORE)[0];
}

export const rdpPostCertificateThumbprintPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.windows.rdp.RDPPostCertificateThumbprintPlugin',
  name: 'RDPPostCertificateThumbprintPlugin',
  stage: 'main',
  async execute(ctx: PluginContext): Promise<PluginResult> {
    const post = ctx.service?.postRdpCertificateThumbprint;
    if (!post) {
      ctx.log.info(
        `The metadata service (${ctx.service?.classPath ?? 'none'}) does not take the RDP certificate thumbprint; skipped`,
      );
      return DONE;
    }
    const thumbprint = rdpCertificateThumbprint(ctx);
    if (!thumbprint)
      throw new PluginError(
        'RDPPostCertificateThumbprintPlugin',
        `no RDP certificate: neither ${RDP_TCP_KEY}\\SSLCertificateSHA1Hash nor a certificate in LocalMachine\\${RDP_STORE} (is Remote Desktop enabled?)`,
      );
    await post.call(ctx.service, thumbprint);
    ctx.log.info(`Posted the RDP certificate thumbprint ${thumbprint}`);
    return DONE;
  },
};

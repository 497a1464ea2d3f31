// ServerCertificatesPlugin: the PKCS#12 server certificates the metadata carries imported into their certificate
// stores.
import { DONE, PluginError, type Plugin, type PluginContext, type PluginResult } from './plugin';
import { describeError } from '../util/errors';

export const serverCertificatesPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.windows.certificates.ServerCertificatesPlugin',
  name: 'ServerCertificatesPlugin',
  stage: 'main',
  async execute(ctx: PluginContext): Promise<PluginResult> {
    // As cloudbase-init's service.get_server_certs(): the metadata's certificates, or the service fetches them now
    // (Azure).
    let certs = ctx.instance?.serverCertificates ?? [];
    if (certs.length === 0 && ctx.service?.serverCertificates) {
      try {
        certs = await ctx.service.serverCertificates();
      } catch (err) {
        throw new PluginError(
          'ServerCertificatesPlugin',
          `could not get the server certificates from ${ctx.service.classPath}: ${describeError(err)}`,
          { cause: err },
        );
      }
    }
    if (certs.length === 0) {
      ctx.log.info('The metadata carries no server certificates');
      return DONE;
    }
    for (const [i, cert] of certs.entries()) {
      if (!/^[A-Za-z ]+$/.test(cert.storeName))
        throw new PluginError(
          'ServerCertificatesPlugin',
          `server certificate ${i}: store name '${cert.storeName}' is not a certificate store name`,
        );
      if (cert.password) ctx.secret(cert.password);
      try {
        const imported = ctx.windows.importPfx(
          cert.pfx,
          cert.password ?? '',
          cert.storeName,
          cert.storeLocation === 'LocalMachine',
        );
        ctx.log.info(
          `Server certificate ${i}: ${imported.map((c) => `${c.thumbprint} in ${cert.storeLocation}\\${c.store}`).join(', ') || 'no certificates in the PFX'}`,
        );
      } catch (err) {
        throw new PluginError(
          'ServerCertificatesPlugin',
          `server certificate ${i} for ${cert.storeLocation}\\${cert.storeName}: ${describeError(err)}`,
          { cause: err },
        );
      }
    }
    return DONE;
  },
};

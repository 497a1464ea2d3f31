// cc_spacewalk: registers a RHEL/Fedora machine with a Spacewalk server (rhnreg_ks) unless it already is.
import { CommandError } from '../util/command-error';
import { datasourceHostname } from './support/hostname-facts';
import { installPackages } from './support/install-packages';
import type { Module } from './module';
import { configModule } from './support/config-module';

/** The CA certificate rhn-setup installs; cloud-init always passes it. */
export const SPACEWALK_CA_CERT = '/usr/share/rhn/RHN-ORG-TRUSTED-SSL-CERT';

/** rhnreg_ks's argv as cloud-init builds it: server URL, profile name (the fqdn), then the optional settings. */
export function rhnregKsArgv(
  server: string,
  profileName: string,
  proxy: string | undefined,
  activationKey: string | undefined,
): string[] {
  const argv = ['rhnreg_ks', '--serverUrl', `https://${server}/XMLRPC`, '--profilename', profileName];
  if (proxy) argv.push('--proxy', proxy);
  argv.push('--sslCACert', SPACEWALK_CA_CERT);
  if (activationKey) argv.push('--activationkey', activationKey);
  return argv;
}

export const spacewalkModule: Module = configModule({
  name: 'spacewalk',
  stage: 'config',
  frequency: 'once-per-instance',
  distros: ['rhel', 'fedora'],
  activateBy: ['spacewalk'],
  // `if server:` then '%s' % server; proxy and activation_key likewise: a Python-false value is as if unset.
  configKeys: { spacewalk: { server: 'truthy-str', proxy: 'truthy-str', activation_key: 'truthy-str' } },
  async run(ctx, cfg): Promise<void> {
    if (cfg.spacewalk === undefined) {
      ctx.log.debug("Skipping module named spacewalk, no 'spacewalk' key in configuration");
      return;
    }
    const sw = cfg.spacewalk;
    if (!sw.server) {
      ctx.log.debug("Skipping module named spacewalk, 'spacewalk/server' key was not found in configuration");
      return;
    }
    await installPackages(ctx, 'spacewalk', ['rhn-setup']);
    // rhn-profile-sync succeeds when registered, exits 1 when not; anything else is a failure.
    const sync = await ctx.platform.run(['rhn-profile-sync', '--verbose'], { allowFailure: true });
    if (sync.stdout || sync.stderr) await ctx.output(sync.stdout + sync.stderr);
    if (sync.code === 0) return;
    if (sync.code !== 1)
      throw new CommandError(`command 'rhn-profile-sync --verbose' exited with code ${sync.code}`, {
        argv: ['rhn-profile-sync', '--verbose'],
        code: sync.code,
      });
    const profile = (await datasourceHostname(ctx, true)).hostname;
    ctx.log.info(`Registering using \`rhnreg_ks\` profile '${profile}' into server '${sw.server}'`);
    const argv = rhnregKsArgv(sw.server, profile, sw.proxy, sw.activation_key);
    // capture=False, as cloud-init runs it: the output goes to the console, not into the error.
    const r = await ctx.platform.run(argv, { allowFailure: true });
    if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
    if (r.code !== 0)
      throw new CommandError(`command '${argv.join(' ')}' exited with code ${r.code}`, { argv, code: r.code });
  },
});

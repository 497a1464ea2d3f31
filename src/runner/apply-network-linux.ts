// The runner's network step: net/ selects the config (cmdline, initramfs, system, datasource, fallback), renders it,
// waits for the devices it names and renames them, runs the renderer's post-write commands and, when the stage
// asks, brings the interfaces up with the activator.
import { posix } from 'node:path';
import { runPostRenderCommands } from '../net/activate/post-render';
import { selectActivator } from '../net/activate/select-activator';
import { renderNetwork, selectRenderer } from '../net/render-network';
import { selectNetworkConfig, type SelectInput } from '../net/select-network-config';
import type { InstanceData } from '../sources/datasource';
import { readSysClassNet } from '../net/sys-class-net';
import { applyNetworkConfigNames, waitForPhysdevs } from '../net/wait-for-physdevs';
import { networkFormatByName } from '../sources/registry';
import type { NetworkInput, NetworkOutcome } from './runner-deps';
import { validateNetworkConfigAtBoot } from './validate-network-config-at-boot';

/** The source's network config for selection, with the format its name resolves to in the registry (if any). */
export function datasourceNetworkOf(
  network: InstanceData['networkConfig'],
): Pick<SelectInput, 'datasourceNetwork' | 'datasourceFormat'> {
  if (!network) return {};
  const format = networkFormatByName(network.format);
  return { datasourceNetwork: network, ...(format ? { datasourceFormat: format } : {}) };
}

export async function applyNetworkOnLinux(input: NetworkInput): Promise<NetworkOutcome> {
  const p = input.platform;
  const runNetFiles: Record<string, string> = {};
  for (const name of await p.listDir('/run').catch(() => [] as string[])) {
    if (/^net6?-.+\.conf$/.test(name)) {
      const text = await p.readTextIfExists(posix.join('/run', name));
      if (text !== undefined) runNetFiles[posix.join('/run', name)] = text;
    }
  }
  const sysInfo = (input.config.system_info ?? {}) as Record<string, unknown>;
  const sysNet = (sysInfo.network ?? {}) as Record<string, unknown>;
  const renderers = Array.isArray(sysNet.renderers) ? sysNet.renderers.map(String) : undefined;
  // Known before the config is chosen, as cloud-init's distro knows it (EC2's conversion depends on it); when none
  // is available, rendering below reports it.
  const renderer = await selectRenderer(p, input.distro.name, renderers).catch(() => undefined);
  const sel = selectNetworkConfig({
    kernelCmdline: input.kernelCmdline,
    runNetFiles,
    openIscsi: await p.exists('/run/initramfs/open-iscsi.interface'),
    systemConfig: input.config.network,
    ...datasourceNetworkOf(input.instance?.networkConfig),
    nics: await readSysClassNet(p),
    upgradedNetwork: await p.exists('/var/lib/cloud/data/upgraded-network'),
    ...(renderer ? { renderer } : {}),
  });
  if (sel.disabled) {
    input.log.info(`network config not applied: ${sel.reason}`);
    return { written: [] };
  }
  input.log.debug(`network config from ${sel.source}`);
  // As cloud-init's stages: the devices the config names by MAC must be there (a bounded wait; still missing is
  // an error, so nothing is applied), and get their names, before anything is rendered or brought up.
  await validateNetworkConfigAtBoot(sel.config, input.log);
  await waitForPhysdevs(p, input.log, sel.config);
  await applyNetworkConfigNames(p, input.log, sel.config);
  const config = sel.config;
  const out = await renderNetwork(p, sel.state, {
    distro: input.distro.name,
    ...(renderer ? { renderer } : renderers ? { renderers } : {}),
  });
  input.log.info(`network config rendered with ${out.renderer}: ${out.files.join(', ')}`);
  await runPostRenderCommands(p, input.log, out.renderer, input.distro.name);
  if (!input.bringUp) {
    input.log.debug('Not bringing up newly configured network interfaces');
    return { written: out.files, config };
  }
  input.log.debug('Bringing up newly configured network interfaces');
  const activator = await selectActivator(
    p,
    input.distro.name,
    Array.isArray(sysNet.activators) ? sysNet.activators.map(String) : undefined,
  );
  if (!activator) {
    input.log.warn('No network activator found, not bringing up network interfaces');
    return { written: out.files, config, broughtUp: false };
  }
  input.log.debug(`Using selected activator: ${activator.name}`);
  const broughtUp = await activator.bringUpAll({ platform: p, log: input.log }, sel.state);
  return { written: out.files, config, activator: activator.name, broughtUp };
}

// `devel hotplug-hook -s net query|handle|enable`: cloud-init's hotplug hook. udev's rule runs hook-hotplug, which
// (once cloud-init has finished) writes `--subsystem=net handle --devpath=… --udevaction=…` to the FIFO
// /run/cloud-init/share/hook-hotplug-cmd; cloud-init-hotplugd.socket starts the service that runs this command.
import { posix } from 'node:path';
import { createLinuxFinder } from '../devices/create-finder';
import { runPostRenderCommands } from '../net/activate/post-render';
import { selectActivator } from '../net/activate/select-activator';
import { renderNetwork, selectRenderer } from '../net/render-network';
import { selectNetworkConfig } from '../net/select-network-config';
import { readSysClassNet } from '../net/sys-class-net';
import { detectDistro } from '../platform/linux/distro/detect-distro';
import type { Platform } from '../platform/platform';
import { datasourceNetworkOf } from '../runner/apply-network-linux';
import { CACHE_FILE, restoreInstance, serializeInstance, type CachedSource } from '../runner/instance-cache';
import { writeInstanceData } from '../runner/instance-data';
import { mergeCloudConfig, parseCloudConfigFile } from '../runner/merge-cloud-config';
import { loadRunConfig, readKernelCmdline, type RunConfig } from '../runner/run-config';
import type { InstanceData } from '../sources/datasource';
import { buildDetectContext } from '../sources/detect';
import { installHotplug } from '../sources/hotplug-udev-rule';
import { noneSource } from '../sources/none';
import { datasourceByName } from '../sources/registry';
import { sourceSettings } from '../sources/settings';
import {
  HOTPLUG_ENABLED_FILE,
  readHotplugEnabledScopes,
  supportsEvent,
  updateEventEnabled,
} from '../sources/update-events';
import { KilnError, UsageError } from '../util/errors';
import { FileSink, type Log } from '../util/log';
import type { Command, CommandContext } from './command';

/** A hotplug event that could not be handled after every attempt: the reason of the last one. */
export class HotplugError extends KilnError {
  override readonly name = 'HotplugError';
}

const ACTIONS = ['query', 'handle', 'enable'];
/** cloud-init's waits between attempts (seconds): metadata may lag behind the device by a while. */
export const HOTPLUG_WAITS_S = [1, 3, 5, 10, 30];

interface HotplugState {
  rc: RunConfig;
  cached: CachedSource;
  cfg: Record<string, unknown>;
  scopes: string[];
}

/**
 * With no cached instance, cloud-init's fetch searches the sources that need neither filesystem nor network
 * (ds_deps []): only None, when datasource_list names it (the built-in list does).
 */
async function noneWithoutCache(p: Platform, ctx: CommandContext, rc: RunConfig): Promise<CachedSource | undefined> {
  const list = rc.config.datasource_list;
  if (Array.isArray(list) && !list.includes('None')) return undefined;
  ctx.log.debug('no cache found; searching the sources with no dependencies: None');
  const detect = await buildDetectContext({
    platform: p,
    log: ctx.log,
    config: rc.config,
    finder: createLinuxFinder(p.root, ctx.env, ctx.log),
    kernelCmdline: rc.kernelCmdline,
    env: ctx.env,
  });
  return {
    source: noneSource.name,
    data: await noneSource.crawl({ ...detect, settings: sourceSettings(rc.config, noneSource.name) }),
  };
}

async function loadState(p: Platform, ctx: CommandContext, rc: RunConfig): Promise<HotplugState | undefined> {
  // cloud-init's fetch(existing="trust"): the source found at boot, from the cache.
  const cached = (await restoreInstance(p, rc.paths.instanceLink)) ?? (await noneWithoutCache(p, ctx, rc));
  if (!cached) return undefined;
  const dir = rc.paths.instanceLink;
  const read = async (name: string) => {
    const file = posix.join(dir, name);
    const text = await p.readTextIfExists(file);
    return text === undefined ? undefined : parseCloudConfigFile(text, file);
  };
  const cfg = mergeCloudConfig({
    system: rc.config,
    datasource: cached.data.sourceConfig,
    vendor: await read('vendor-cloud-config.txt'),
    vendor2: await read('vendor2-cloud-config.txt'),
    user: await read('cloud-config.txt'),
  });
  return { rc, cached, cfg, scopes: await readHotplugEnabledScopes(p, rc.paths.cloudDir, ctx.log) };
}

function hotplugEnabled(s: HotplugState, log: Log): boolean {
  if (!supportsEvent(s.cached.source, 'hotplug')) {
    log.debug('hotplug not supported for event of type net');
    return false;
  }
  if (
    !updateEventEnabled({ source: s.cached.source, cfg: s.cfg, event: 'hotplug', hotplugEnabledScopes: s.scopes, log })
  ) {
    log.debug('hotplug not enabled for event of type net');
    return false;
  }
  return true;
}

/** Crawls the cached source again (cloud-init's update_metadata_if_supported for a hotplug event). */
async function recrawl(p: Platform, ctx: CommandContext, s: HotplugState): Promise<InstanceData> {
  const source = datasourceByName(s.cached.source);
  if (!source)
    throw new HotplugError(
      `the cached datasource ${s.cached.source} is not one kiln knows; run 'cloud-init clean' and boot again`,
    );
  const detect = await buildDetectContext({
    platform: p,
    log: ctx.log,
    config: s.rc.config,
    finder: createLinuxFinder(p.root, ctx.env, ctx.log),
    kernelCmdline: s.rc.kernelCmdline,
    env: ctx.env,
  });
  return source.crawl({ ...detect, settings: sourceSettings(s.rc.config, source.name), stage: 'network' });
}

/**
 * DATA with the user and vendor data of the boot (BOOT): obj.json names those blobs by the user-data.txt and
 * vendor-data(2).txt files the boot wrote beside it, which a hotplug does not rewrite (cloud-init processes user data
 * once per instance, not per event); the metadata and network config are the refreshed ones.
 */
function withBootBlobs(data: InstanceData, boot: InstanceData): InstanceData {
  const out: InstanceData = { ...data };
  for (const key of ['userData', 'vendorData', 'vendorData2'] as const) {
    const blob = boot[key];
    if (blob) out[key] = blob;
    else delete out[key];
  }
  return out;
}

async function handle(
  p: Platform,
  ctx: CommandContext,
  s: HotplugState,
  devpath: string,
  action: 'add' | 'remove',
  waits: readonly number[],
): Promise<void> {
  const log = ctx.log;
  const device = posix.basename(devpath);
  // The device's MAC, by which the metadata names it (read before the attempts: on remove it may vanish).
  const mac = ((await p.readTextIfExists(`/sys/class/net/${device}/address`)) ?? '').trim().toLowerCase();
  const distro = await detectDistro(p, s.rc.config);
  const sysNet = ((s.cfg.system_info as Record<string, unknown> | undefined)?.network ?? {}) as Record<string, unknown>;
  let last: Error = new HotplugError('Bug while processing hotplug event.');
  for (const [attempt, wait] of waits.entries()) {
    log.debug(`subsystem=net update attempt ${attempt}/${waits.length}`);
    try {
      log.debug('Refreshing metadata');
      const data = await recrawl(p, ctx, s);
      // 25.1's get_data persists the refreshed instance data (instance-data(-sensitive).json, cloud-id) at once.
      await writeInstanceData(p, s.rc.paths, {
        instance: withBootBlobs(data, s.cached.data),
        distro,
        mergedConfig: s.cfg,
        systemConfig: s.rc.config,
      });
      if (!data.networkConfig)
        throw new HotplugError(
          `Datasource ${s.cached.source} not updated for event hotplug: it gives no network config`,
        );
      const renderers = Array.isArray(sysNet.renderers) ? sysNet.renderers.map(String) : undefined;
      const renderer = await selectRenderer(p, distro.name, renderers).catch(() => undefined);
      const sel = selectNetworkConfig({
        kernelCmdline: '',
        ...datasourceNetworkOf(data.networkConfig),
        order: ['ds'],
        nics: await readSysClassNet(p),
        ...(renderer ? { renderer } : {}),
      });
      if (sel.disabled) throw new HotplugError(`the refreshed network config is not usable: ${sel.reason}`);
      log.debug('Detecting device in updated metadata');
      const found = [...sel.state.interfaces.values()].filter((i) => (i.mac_address ?? '').toLowerCase() === mac);
      log.debug(`Ifaces with ID=${mac} : ${found.map((i) => i.name).join(', ')}`);
      if ((action === 'add') !== found.length > 0)
        throw new HotplugError(`Failed to detect ${mac || device} in updated metadata`);
      log.debug('Applying config change');
      const out = await renderNetwork(p, sel.state, {
        distro: distro.name,
        ...(renderer ? { renderer } : renderers ? { renderers } : {}),
      });
      log.info(`network config rendered with ${out.renderer}: ${out.files.join(', ')}`);
      await runPostRenderCommands(p, log, out.renderer, distro.name);
      const activator = await selectActivator(
        p,
        distro.name,
        Array.isArray(sysNet.activators) ? sysNet.activators.map(String) : undefined,
      );
      if (!activator)
        throw new HotplugError(
          'No available network activators found: install ifupdown, netplan, NetworkManager or systemd-networkd',
        );
      if (action === 'add' && !(await activator.bringUpInterface({ platform: p, log }, device)))
        throw new HotplugError(`Failed to bring up device: ${devpath}`);
      if (action === 'remove' && !(await activator.bringDownInterface({ platform: p, log }, device)))
        throw new HotplugError(`Failed to bring down device: ${devpath}`);
      log.debug('Updating cache');
      await p.writeFile(
        posix.join(s.rc.paths.instanceLink, CACHE_FILE),
        serializeInstance(s.cached.source, withBootBlobs(data, s.cached.data), s.cached.stage),
        { mode: 0o600 },
      );
      return;
    } catch (err) {
      last = err as Error;
      log.debug(`Exception while processing hotplug event. ${last.message}`);
      if (attempt < waits.length) await new Promise((r) => setTimeout(r, wait * 1000));
    }
  }
  throw last instanceof KilnError ? last : new HotplugError(last.message);
}

/** hotplug.enabled as 25.1 writes it: json.dumps of {"scopes": [...]}, Python's separators, no final newline. */
export function hotplugEnabledText(scopes: readonly string[]): string {
  return `{"scopes": [${scopes.map((x) => JSON.stringify(x)).join(', ')}]}`;
}

async function enable(p: Platform, ctx: CommandContext, s: HotplugState): Promise<number> {
  if (!supportsEvent(s.cached.source, 'hotplug')) {
    ctx.io.err(`hotplug not supported for event of net\n`);
    return 1;
  }
  if (s.scopes.includes('network')) {
    ctx.io.err('Not installing hotplug for event of type net. Reason: Already done.\n');
  } else {
    const scopes = [...s.scopes, 'network'];
    await p.writeFile(posix.join(s.rc.paths.cloudDir, HOTPLUG_ENABLED_FILE), hotplugEnabledText(scopes), {
      mode: 0o640,
    });
    await installHotplug({
      platform: p,
      log: ctx.log,
      source: s.cached.source,
      cfg: s.cfg,
      cloudDir: s.rc.paths.cloudDir,
    });
  }
  // 25.1 says so whenever enable_hotplug succeeded, "Already done" included.
  ctx.io.out('Enabled cloud-init hotplug for subsystem=net\n');
  return 0;
}

export const develHotplugHookCommand: Command = {
  words: ['devel', 'hotplug-hook'],
  summary: 'handle a network hotplug event, say whether hotplug is enabled, or enable it',
  usage: 'devel hotplug-hook -s net query | handle -d DEVPATH -u add|remove | enable',
  faces: ['kiln', 'cloud-init'],
  positional: [1, 2],
  flags: {
    string: ['subsystem', 'devpath', 'udevaction'],
    boolean: [],
    alias: { s: 'subsystem', u: 'udevaction' },
    help: [
      '-s, --subsystem net      the subsystem to act on (only net)',
      'query                    print enabled or disabled for the found datasource and config',
      'handle                   re-read the metadata, render and bring up (add) the network config',
      '  -d, --devpath PATH     the sysfs path of the device (/devices/…/net/eth1)',
      '  -u, --udevaction ACT   add or remove',
      'enable                   turn hotplug on for this instance and install the udev rule',
    ],
  },
  async run(ctx, args) {
    const f = args.flags;
    const subsystem = f.subsystem as string | undefined;
    if (subsystem !== 'net')
      throw new UsageError(`-s/--subsystem is required and must be net${subsystem ? `, not '${subsystem}'` : ''}`);
    const action = args.positional[0] as string;
    if (!ACTIONS.includes(action))
      throw new UsageError(`the hotplug action must be one of ${ACTIONS.join(', ')}, not '${action}'`);
    // `-d` is kiln's global --debug alias, so `-d PATH` arrives as debug plus one positional (as net-convert's -d).
    const devpath = (f.devpath as string | undefined) ?? (f.debug === true ? args.positional[1] : undefined);
    if (args.positional.length > 1 && (action !== 'handle' || f.devpath !== undefined))
      throw new UsageError(`unexpected argument '${args.positional[1]}'`);
    const p = ctx.platform();
    const rc = await loadRunConfig(p, ctx.facts.defaultCloudConfig, await readKernelCmdline(p));
    if (!ctx.dryRun) {
      // cloud-init's hook logs to cloud-init.log as a stage does (the hotplugd service's output goes to the journal).
      const logFile = (await p.resolvedHostPath?.(rc.paths.logFile)) ?? p.hostPath(rc.paths.logFile);
      ctx.logger.addSink(new FileSink('DEBUG', logFile, 0o640));
    }
    const s = await loadState(p, ctx, rc);
    if (!s) {
      ctx.io.out('Unable to determine hotplug state. No datasource detected\n');
      return 1;
    }
    ctx.log.debug(
      `hotplug-hook called with the following arguments: {hotplug_action: ${action}, subsystem: net, udevaction: ${String(f.udevaction ?? 'None')}, devpath: ${devpath ?? 'None'}}`,
    );
    if (action === 'query') {
      ctx.io.out(`${hotplugEnabled(s, ctx.log) ? 'enabled' : 'disabled'}\n`);
      return 0;
    }
    if (action === 'enable') return enable(p, ctx, s);
    const udevaction = f.udevaction as string | undefined;
    if (!devpath) throw new UsageError('handle needs -d/--devpath PATH');
    if (udevaction !== 'add' && udevaction !== 'remove')
      throw new UsageError('handle needs -u/--udevaction add or remove');
    if (!hotplugEnabled(s, ctx.log)) return 0;
    const waits = ctx.env.KILN_HOTPLUG_WAITS ? ctx.env.KILN_HOTPLUG_WAITS.split(',').map(Number) : HOTPLUG_WAITS_S;
    await handle(p, ctx, s, devpath, udevaction, waits);
    ctx.log.debug('Exiting hotplug handler');
    return 0;
  },
};

// AzureGuestAgentPlugin: the Azure guest agent (RdAgent, or WaSvc on Nano Server) reinstalled from the provisioning
// data's package, as cloudbase-init does.
import { PluginError, DONE, type Plugin, type PluginContext, type PluginResult } from './plugin';
import { describeError } from '../util/errors';

const RDAGENT = 'RdAgent';
const GUEST_AGENT = 'WindowsAzureGuestAgent';
const TELEMETRY = 'WindowsAzureTelemetryService';
const SERVICE_STOPPED = 1;
/** logman's "not running" and "not found": a trace that is already gone is no failure. */
const LOGMAN_FINE = new Set([0, 0x80300104, 0x80300002]);
const NANO_KEY = 'SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Server\\ServerLevels';
const DOTNET4_KEY = 'SOFTWARE\\Microsoft\\NET Framework Setup\\NDP\\v4\\Full';

/**
 * What the metadata says about the agent (cloudbase-init's get_vm_agent_package_provisioning_data); only Azure has it.
 */
interface VmAgentData {
  provision: boolean;
  package_name?: string;
}

function vmAgentData(ctx: PluginContext): VmAgentData | undefined {
  const v = ctx.instance?.metadata.vm_agent;
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const r = v as Record<string, unknown>;
  return {
    provision: r.provision === true,
    ...(typeof r.package_name === 'string' && r.package_name ? { package_name: r.package_name } : {}),
  };
}

function systemDrive(ctx: PluginContext): string {
  return (ctx.env.SystemDrive ?? 'C:').replace(/\\+$/, '');
}

function system32(ctx: PluginContext): string {
  return `${(ctx.env.SystemRoot ?? `${systemDrive(ctx)}\\Windows`).replace(/\\+$/, '')}\\System32`;
}

/** '%m/%d/%Y %I:%M:%S %p' in local time, as cloudbase-init writes VmProvisionedAt. */
export function provisionedAt(d: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const h12 = d.getHours() % 12 === 0 ? 12 : d.getHours() % 12;
  return `${two(d.getMonth() + 1)}/${two(d.getDate())}/${d.getFullYear()} ${two(h12)}:${two(d.getMinutes())}:${two(d.getSeconds())} ${d.getHours() < 12 ? 'AM' : 'PM'}`;
}

async function removeAgentServices(ctx: PluginContext): Promise<void> {
  ctx.log.info('Stopping and removing any existing Azure guest agent services');
  for (const name of [RDAGENT, GUEST_AGENT, TELEMETRY]) {
    const state = ctx.windows.serviceState(name);
    if (state === undefined) continue;
    if (state !== SERVICE_STOPPED) await ctx.windows.stopService(name);
    ctx.windows.deleteService(name);
  }
}

async function removeAzureDirs(ctx: PluginContext): Promise<void> {
  for (const name of ['WindowsAzure', 'Packages']) {
    const path = `${systemDrive(ctx)}\\${name}`;
    if (!(await ctx.platform.exists(path))) continue;
    ctx.log.info(`Removing folder: ${path}`);
    try {
      await ctx.platform.remove(path, { recursive: true });
    } catch (err) {
      // As cloudbase-init: a folder that cannot go (a file held open) is logged, and the install goes on.
      ctx.log.error(`Failed to remove path: ${path}: ${describeError(err)}`);
    }
  }
}

async function logman(ctx: PluginContext, action: 'stop' | 'delete', name: string, ets = false): Promise<void> {
  const argv = [`${system32(ctx)}\\logman.exe`, ...(ets ? ['-ets'] : []), action, name];
  const r = await ctx.platform.run(argv, { allowFailure: true, timeoutMs: 60_000 });
  const code = r.code >>> 0;
  if (!LOGMAN_FINE.has(code))
    ctx.log.error(
      `logman failed.\nExit code: 0x${code.toString(16)}\nOutput: ${r.stdout.trim()}\nError: ${r.stderr.trim()}`,
    );
}

/** Unpacks ZIP into TARGET with the system's tar.exe (Windows 10 1803 and later), else PowerShell's Expand-Archive. */
async function extractZip(ctx: PluginContext, zip: string, target: string): Promise<void> {
  const tar = `${system32(ctx)}\\tar.exe`;
  const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;
  const argv = (await ctx.platform.exists(tar))
    ? [tar, '-xf', zip, '-C', target]
    : [
        `${system32(ctx)}\\WindowsPowerShell\\v1.0\\powershell.exe`,
        '-NoProfile',
        '-NonInteractive',
        '-Command',
        `Expand-Archive -LiteralPath ${quote(zip)} -DestinationPath ${quote(target)} -Force`,
      ];
  const r = await ctx.platform.run(argv, { allowFailure: true, timeoutMs: 600_000 });
  if (r.code !== 0)
    throw new PluginError(
      'AzureGuestAgentPlugin',
      `could not unpack ${zip} into ${target} (${argv[0]} exit ${r.code}): ${(r.stderr || r.stdout).trim().split('\n').pop() ?? ''}`,
    );
}

/** The first drive holding '$$\OEM\GuestAgent' (the image's OEM folder), in drive order. */
async function guestAgentSource(ctx: PluginContext): Promise<string> {
  for (const { root } of ctx.windows.volumes()) {
    const path = `${root.replace(/\\+$/, '')}\\$$\\OEM\\GuestAgent`;
    if (await ctx.platform.exists(path)) return path;
  }
  throw new PluginError(
    'AzureGuestAgentPlugin',
    'Azure guest agent source folder not found ($$\\OEM\\GuestAgent on no drive)',
  );
}

function isNanoServer(ctx: PluginContext): boolean {
  const v = ctx.windows.regGet('HKLM', NANO_KEY, 'NanoServer');
  return v?.type === 'REG_DWORD' && v.data === 1;
}

function dotNet4Installed(ctx: PluginContext): boolean {
  const v = ctx.windows.regGet('HKLM', DOTNET4_KEY, 'Install');
  return v?.type === 'REG_DWORD' && v.data !== 0;
}

async function installRdAgent(ctx: PluginContext, packageName: string): Promise<void> {
  const source = await guestAgentSource(ctx);
  const zip = `${source}\\${packageName}`;
  if (!(await ctx.platform.exists(zip)))
    throw new PluginError('AzureGuestAgentPlugin', `Azure guest agent package file not found: ${zip}`);
  ctx.log.info('Stopping Azure guest agent event traces');
  await logman(ctx, 'stop', 'GAEvents');
  await logman(ctx, 'stop', 'RTEvents');
  await logman(ctx, 'stop', 'WindowsAzure-GuestAgent-Metrics', true);
  await logman(ctx, 'stop', 'WindowsAzure-GuestAgent-Diagnostic', true);
  ctx.log.info('Deleting Azure guest agent event traces');
  await logman(ctx, 'delete', 'GAEvents');
  await logman(ctx, 'delete', 'RTEvents');
  const target = `${systemDrive(ctx)}\\WindowsAzure\\Packages`;
  if (await ctx.platform.exists(target)) await ctx.platform.remove(target, { recursive: true });
  await ctx.platform.mkdir(target);
  await extractZip(ctx, zip, target);
  ctx.windows.createService({
    name: RDAGENT,
    displayName: RDAGENT,
    binaryPath: `${target}\\WaAppAgent.exe`,
    startType: 'demand',
    dependencies: [],
  });
  const version = ctx.windows.fileVersion(ctx.platform.hostPath(`${target}\\TransparentInstaller.dll`));
  ctx.windows.regSet('HKLM', 'SOFTWARE\\Microsoft\\Windows Azure', 'VMType', { type: 'REG_SZ', data: 'IAAS' });
  ctx.windows.regSet('HKLM', 'SOFTWARE\\Microsoft\\GuestAgent', 'Incarnation', {
    type: 'REG_SZ',
    data: version.join('.'),
  });
  ctx.windows.regSet('HKLM', 'SOFTWARE\\Microsoft\\GuestAgent', 'VmProvisionedAt', {
    type: 'REG_SZ',
    data: provisionedAt(new Date()),
  });
  if (!dotNet4Installed(ctx)) {
    ctx.log.warn('The .Net framework 4.5 or greater is required by the Azure guest agent');
    return;
  }
  ctx.windows.setServiceStartType(RDAGENT, 'auto');
  ctx.windows.startService(RDAGENT);
}

async function installNanoAgent(ctx: PluginContext): Promise<void> {
  const drive = systemDrive(ctx);
  const target = `${drive}\\WindowsAzure\\Packages\\GuestAgent`;
  const logs = `${drive}\\WindowsAzure\\Logs`;
  await ctx.platform.mkdir(target);
  await ctx.platform.mkdir(logs);
  await extractZip(ctx, `${drive}\\Windows\\NanoGuestAgent\\VmAgent_Nano.zip`, target);
  const command = `${target}\\WaSvc.exe -name ${GUEST_AGENT} -ownLog ${logs}\\W_svc.log -svcLog ${logs}\\S_svc.log -event Global\\AzureAgentStopRequest -- ${target}\\Microsoft.Azure.Agent.Windows.exe`;
  ctx.windows.createService({
    name: GUEST_AGENT,
    displayName: GUEST_AGENT,
    binaryPath: command,
    startType: 'demand',
    dependencies: [],
  });
  ctx.windows.setServiceStartType(GUEST_AGENT, 'auto');
  ctx.windows.startService(GUEST_AGENT);
}

export const azureGuestAgentPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.windows.azureguestagent.AzureGuestAgentPlugin',
  name: 'AzureGuestAgentPlugin',
  stage: 'main',
  async execute(ctx: PluginContext): Promise<PluginResult> {
    const data = vmAgentData(ctx);
    if (!data) {
      ctx.log.info('Azure guest agent provisioning data not present');
      return DONE;
    }
    if (!data.provision) {
      ctx.log.info('Skipping Azure guest agent provisioning as by metadata request');
      return DONE;
    }
    await removeAgentServices(ctx);
    await removeAzureDirs(ctx);
    if (isNanoServer(ctx)) {
      await installNanoAgent(ctx);
      return DONE;
    }
    if (!data.package_name)
      throw new PluginError('AzureGuestAgentPlugin', 'Azure guest agent package_name not found in metadata');
    ctx.log.debug(`Azure guest agent package name: ${data.package_name}`);
    await installRdAgent(ctx, data.package_name);
    return DONE;
  },
};

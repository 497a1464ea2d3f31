// OpenNebula on Windows, as cloudbase-init's OpenNebulaService reads it: the CD-ROM holding context.sh, its
// host name, keys and user data, and one static address per ETHx_MAC (eth0, eth1 … while they are numbered on).
import type { CrawlContext, DetectContext, InstanceData } from '../datasource';
import { SourceError } from '../source-error';
import { ContextShellError, parseContextShell } from './context-shell';

const NAME = 'OpenNebula';
const INSTANCE_ID = 'iid-dsopennebula';
const CONTEXT_FILE = 'context.sh';

/** cloudbase-init looks at CD-ROM drives only, whatever their label, for one holding context.sh. */
async function contextDrives(ctx: DetectContext) {
  return ctx.finder.find({ labels: [], anyLabel: true, fsTypes: ['iso9660', 'udf'], mustContain: [CONTEXT_FILE] });
}

export async function detectCloudbaseOpenNebula(ctx: DetectContext): Promise<boolean> {
  return (await contextDrives(ctx)).length > 0;
}

/** cloudbase-init's _calculate_netmask: 255 where the address and gateway octets agree, 0 where they differ. */
function netmaskFromGateway(address: string, gateway: string): string {
  const a = address.split('.');
  const g = gateway.split('.');
  return a
    .slice(0, Math.min(a.length, g.length))
    .map((o, i) => (o === g[i] ? '255' : '0'))
    .join('.');
}

/**
 * OpenNebulaService.get_network_details as a v1 config: for each ETH<i>_MAC from 0 up (stopping at the first
 * missing one), a static address; a NIC lacking its IP, its DNS, or both mask and gateway is left to DHCP.
 */
export function cloudbaseOpenNebulaNetwork(
  context: Record<string, string>,
  log: { debug(m: string): void },
): Record<string, unknown> | undefined {
  const config: unknown[] = [];
  for (let i = 0; context[`ETH${i}_MAC`]; i++) {
    const mac = (context[`ETH${i}_MAC`] as string).toLowerCase();
    const address = context[`ETH${i}_IP`];
    const gateway = context[`ETH${i}_GATEWAY`];
    const dns = context[`ETH${i}_DNS`];
    let netmask = context[`ETH${i}_MASK`];
    if (netmask === undefined && gateway && address !== undefined) netmask = netmaskFromGateway(address, gateway);
    if (address === undefined || netmask === undefined || dns === undefined) {
      log.debug(`OpenNebula: incomplete NIC details for ETH${i} (${mac}); it keeps DHCP`);
      continue;
    }
    const subnet: Record<string, unknown> = { type: 'static', address, netmask, dns_nameservers: dns.split(' ') };
    if (gateway) subnet.gateway = gateway;
    config.push({ type: 'physical', name: `eth${i}`, mac_address: mac, subnets: [subnet] });
  }
  return config.length > 0 ? { version: 1, config } : undefined;
}

export async function crawlCloudbaseOpenNebula(ctx: CrawlContext): Promise<InstanceData> {
  const drive = (await contextDrives(ctx))[0];
  if (!drive) throw new SourceError(NAME, `no CD-ROM drive holds ${CONTEXT_FILE}`);
  const bytes = await drive.tree.readFile(CONTEXT_FILE);
  if (!bytes) throw new SourceError(NAME, `${drive.device}: ${CONTEXT_FILE} went missing while it was read`);
  let context: Record<string, string>;
  try {
    context = parseContextShell(Buffer.from(bytes).toString('utf8'));
  } catch (err) {
    if (err instanceof ContextShellError)
      throw new SourceError(NAME, `${drive.device}: ${err.message}`, { cause: err });
    throw err;
  }
  ctx.log.info(
    `Found drive ${drive.label || '(no label)'} (${drive.device}) with OpenNebula metadata file ${CONTEXT_FILE}`,
  );
  const data: InstanceData = {
    instanceId: INSTANCE_ID,
    cloudName: 'opennebula',
    platform: 'opennebula',
    subplatform: `config-disk (${drive.device})`,
    publicKeys: [],
    metadata: { ...context, 'instance-id': INSTANCE_ID },
  };
  const host = context.SET_HOSTNAME ?? context.HOSTNAME;
  if (host) data.localHostname = host;
  // SSH_PUBLIC_KEY before SSH_KEY here, the other way round from cloud-init.
  const keys = context.SSH_PUBLIC_KEY ?? context.SSH_KEY;
  if (keys !== undefined) data.publicKeys = keys.split(/\r\n|\n|\r/).filter((k) => k.trim() !== '');
  // OpenNebulaService hands user data over as it is: no USERDATA_ENCODING here.
  const userData = context.USER_DATA ?? context.USERDATA;
  if (userData !== undefined) data.userData = Buffer.from(userData, 'utf8');
  const net = cloudbaseOpenNebulaNetwork(context, ctx.log);
  if (net) data.networkConfig = { format: 'v1', config: net };
  return data;
}

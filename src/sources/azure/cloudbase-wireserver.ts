// The wireserver as cloudbase-init's AzureService speaks to it: protocol 2015-04-05, its goal state, health reports and
// role properties.
import type { WindowsSystem } from '../../platform/windows/windows-system';
import { abortableSleep, HttpError, type HttpClient } from '../../util/http';
import type { Log } from '../../util/log';
import { childrenNamed, escapeXmlText, parseXml, type XmlElement } from '../../util/xml-reader';
import { SourceError } from '../source-error';
import { DEFAULT_WIRESERVER } from './wireserver';
import { describeError } from '../../util/errors';

/** The protocol version cloudbase-init asks for, after checking the wireserver lists it. */
export const CLOUDBASE_WIRESERVER_VERSION = '2015-04-05';
const WIRESERVER_DHCP_OPTION = 245;

export interface CloudbaseGoalState {
  incarnation: string;
  containerId: string;
  roleInstanceId: string;
  expectedState: string;
  certificatesUrl?: string;
  hostingEnvironmentUrl?: string;
}

function path(el: XmlElement, names: string[]): XmlElement | undefined {
  let cur: XmlElement | undefined = el;
  for (const n of names) cur = cur ? childrenNamed(cur, '', n)[0] : undefined;
  return cur;
}

/** The goal state's ids and URLs; cloudbase-init refuses one whose machine is not expected to be Started. */
export function parseCloudbaseGoalState(xml: string, where: string): CloudbaseGoalState {
  const root = parseXml(xml, where);
  const text = (names: string[]) => path(root, names)?.text.trim();
  const role = ['Container', 'RoleInstanceList', 'RoleInstance'];
  const need = (names: string[]): string => {
    const v = text(names);
    if (v === undefined) throw new SourceError('Azure', `${where}: the goal state has no ${names.join('/')}`);
    return v;
  };
  const goal: CloudbaseGoalState = {
    incarnation: need(['Incarnation']),
    containerId: need(['Container', 'ContainerId']),
    roleInstanceId: need([...role, 'InstanceId']),
    expectedState: need(['Machine', 'ExpectedState']),
  };
  if (goal.expectedState !== 'Started')
    throw new SourceError(
      'Azure',
      `${where}: invalid machine expected state '${goal.expectedState}' (cloudbase-init provisions only a Started machine)`,
    );
  const certs = text([...role, 'Configuration', 'Certificates']);
  if (certs) goal.certificatesUrl = certs;
  const hosting = text([...role, 'Configuration', 'HostingEnvironmentConfig']);
  if (hosting) goal.hostingEnvironmentUrl = hosting;
  return goal;
}

/** ElementTree's serialisation with xml_declaration, as cloudbase-init sends its reports. */
function document(body: string): string {
  return `<?xml version='1.0' encoding='utf-8'?>\n${body}`;
}

/** The Health document cloudbase-init posts: State, and SubStatus/Description under Details when given. */
export function cloudbaseHealthReport(
  goal: CloudbaseGoalState,
  state: 'Ready' | 'NotReady',
  subStatus?: string,
  description?: string,
): string {
  const details = subStatus
    ? `<Details><SubStatus>${escapeXmlText(subStatus)}</SubStatus><Description>${escapeXmlText(description ?? '')}</Description></Details>`
    : '';
  return document(
    `<Health><GoalStateIncarnation>${escapeXmlText(goal.incarnation)}</GoalStateIncarnation><Container><ContainerId>${escapeXmlText(goal.containerId)}</ContainerId>` +
      `<RoleInstanceList><Role><InstanceId>${escapeXmlText(goal.roleInstanceId)}</InstanceId><Health><State>${state}</State>${details}</Health></Role></RoleInstanceList></Container></Health>`,
  );
}

/** The RoleProperties document (the RDP certificate thumbprint goes this way). */
export function cloudbaseRoleProperties(goal: CloudbaseGoalState, properties: Record<string, string>): string {
  const attr = (v: string) => escapeXmlText(v).replace(/"/g, '&quot;');
  const props = Object.entries(properties)
    .map(([name, value]) => `<Property name="${attr(name)}" value="${attr(value)}" />`)
    .join('');
  return document(
    `<RoleProperties><Container><ContainerId>${escapeXmlText(goal.containerId)}</ContainerId><RoleInstances><RoleInstance><Id>${escapeXmlText(goal.roleInstanceId)}</Id>` +
      `<Properties>${props}</Properties></RoleInstance></RoleInstances></Container></RoleProperties>`,
  );
}

export interface CloudbaseWireserverOptions {
  client: HttpClient;
  log: Log;
  /** 'http://168.63.129.16' or a mock's URL, without a trailing slash. */
  baseUrl: string;
  /** cloudbase-init's retry_count and retry_count_interval (seconds). */
  retries: number;
  retryIntervalMs: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** One wireserver conversation; the x-ms-version header is added once the Versions document lists it. */
export class CloudbaseWireserver {
  private readonly headers: Record<string, string> = { 'x-ms-guest-agent-name': 'cloudbase-init' };

  constructor(readonly opts: CloudbaseWireserverOptions) {}

  /** PATH relative to the wireserver ('machine?comp=goalstate') or an absolute URL the goal state gave. */
  async request(pathOrUrl: string, req: { body?: string; headers?: Record<string, string> } = {}): Promise<string> {
    const url = /^https?:\/\//.test(pathOrUrl) ? pathOrUrl : `${this.opts.baseUrl}/${pathOrUrl}`;
    const headers = {
      ...this.headers,
      ...(req.body !== undefined ? { 'Content-Type': 'text/xml; charset=utf-8' } : {}),
      ...(req.headers ?? {}),
    };
    // cloudbase-init's _exec_with_retry: retry_count more attempts, retry_count_interval apart, whatever the failure.
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await this.opts.client.fetch(url, {
          method: req.body !== undefined ? 'POST' : 'GET',
          headers,
          ...(req.body !== undefined ? { body: req.body } : {}),
          timeoutMs: this.opts.timeoutMs,
          maxRedirects: 0,
          ...(this.opts.signal ? { signal: this.opts.signal } : {}),
        });
        return res.text();
      } catch (err) {
        if (!(err instanceof HttpError) || attempt >= this.opts.retries || err.kind === 'budget') throw err;
        this.opts.log.debug(
          `Azure: ${url} failed (attempt ${attempt + 1} of ${this.opts.retries + 1}): ${err.message}`,
        );
        await abortableSleep(this.opts.retryIntervalMs, this.opts.signal);
      }
    }
  }

  /**
   * cloudbase-init's _check_version_header: the wireserver must support 2015-04-05, which every later request then
   * names.
   */
  async checkVersion(): Promise<void> {
    if (this.headers['x-ms-version']) return;
    const where = `${this.opts.baseUrl}/?comp=Versions`;
    const root = parseXml(await this.request('?comp=Versions'), where);
    const supported = path(root, ['Supported']);
    const versions = supported ? childrenNamed(supported, '', 'Version').map((v) => v.text.trim()) : [];
    if (!versions.includes(CLOUDBASE_WIRESERVER_VERSION))
      throw new SourceError(
        'Azure',
        `unsupported Azure wireserver version: ${CLOUDBASE_WIRESERVER_VERSION} is not among ${versions.join(', ') || 'none'} (${where})`,
      );
    this.headers['x-ms-version'] = CLOUDBASE_WIRESERVER_VERSION;
  }

  async goalState(): Promise<CloudbaseGoalState> {
    await this.checkVersion();
    return parseCloudbaseGoalState(
      await this.request('machine?comp=goalstate'),
      `${this.opts.baseUrl}/machine?comp=goalstate`,
    );
  }

  async postHealth(
    goal: CloudbaseGoalState,
    state: 'Ready' | 'NotReady',
    subStatus?: string,
    description?: string,
  ): Promise<void> {
    await this.checkVersion();
    const body = cloudbaseHealthReport(goal, state, subStatus, description);
    this.opts.log.debug(`Azure: health data: ${body}`);
    await this.request('machine?comp=health', { body });
  }

  async postRoleProperties(goal: CloudbaseGoalState, properties: Record<string, string>): Promise<void> {
    await this.checkVersion();
    const body = cloudbaseRoleProperties(goal, properties);
    this.opts.log.debug(`Azure: role properties data: ${body}`);
    await this.request('machine?comp=roleProperties', { body });
  }
}

/** The bytes of option 245 as an IPv4 address (socket.inet_ntoa), or undefined when they are not four. */
export function wireserverFromOption(data: Uint8Array | undefined): string | undefined {
  return data && data.length === 4 ? [...data].join('.') : undefined;
}

/**
 * The wireserver address as cloudbase-init finds it on Windows: option 245 of a DHCP adapter's lease, asked for
 * every POLL_MS until WAIT_MS have passed (it "tends to happen within 20 seconds or not at all"), else the
 * well-known address.
 */
export async function findWindowsWireserver(
  windows: WindowsSystem,
  log: Log,
  opts: { waitMs?: number; pollMs?: number; signal?: AbortSignal } = {},
): Promise<string> {
  const waitMs = opts.waitMs ?? 20_000;
  const pollMs = opts.pollMs ?? 5_000;
  for (let waited = 0; ; waited += pollMs) {
    for (const adapter of windows.netAdapters().filter((a) => a.dhcpv4)) {
      let ip: string | undefined;
      try {
        ip = wireserverFromOption(windows.dhcpOption(adapter.guid, WIRESERVER_DHCP_OPTION));
      } catch (err) {
        log.debug(`Azure: DHCP option 245 of ${adapter.friendlyName || adapter.guid}: ${describeError(err)}`);
      }
      if (ip) {
        log.debug(`Azure: wireserver ${ip} from DHCP option 245 of ${adapter.friendlyName || adapter.guid}`);
        return ip;
      }
    }
    if (waited + pollMs > waitMs) break;
    await abortableSleep(pollMs, opts.signal);
  }
  log.debug(`Azure WireServer endpoint not found. Using default endpoint ${DEFAULT_WIRESERVER}.`);
  return DEFAULT_WIRESERVER;
}

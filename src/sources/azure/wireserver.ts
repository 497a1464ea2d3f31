// Azure's wireserver (the fabric endpoint): where it is (DHCP option 245), its goal state, and the health report that
// marks the VM provisioned.
import type { Platform } from '../../platform/platform';
import { abortableSleep, HttpError, type HttpClient } from '../../util/http';
import type { Log } from '../../util/log';
import { childrenNamed, escapeXmlText, parseXml, type XmlElement } from '../../util/xml-reader';
import { SourceError } from '../source-error';

export const DEFAULT_WIRESERVER = '168.63.129.16';
/** Headers every wireserver request carries (the protocol version cloud-init and walinuxagent speak). */
export const WIRESERVER_HEADERS = { 'x-ms-agent-name': 'WALinuxAgent', 'x-ms-version': '2012-11-30' };

/**
 * The address in a lease's option 245 value: 'a8:3f:81:10' (dhclient's unknown-245), 'A83F8110' (systemd-networkd's
 * OPTION_245), or four raw characters with backslash escapes, as cloud-init's get_ip_from_lease_value reads it.
 */
export function wireserverFromLeaseValue(value: string): string | undefined {
  const v = value.replace(/\\/g, '');
  let bytes: number[];
  if (v.length > 4) {
    const hex = v
      .split(':')
      .map((p) => (p.length === 1 ? `0${p}` : p))
      .join('');
    if (!/^[0-9a-fA-F]{1,8}$/.test(hex)) return undefined;
    const n = Number.parseInt(hex, 16);
    bytes = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
  } else {
    if (v.length !== 4) return undefined;
    bytes = [...Buffer.from(v, 'latin1')];
  }
  return bytes.join('.');
}

/**
 * Lease files that may hold option 245, newest knowledge first: kiln's temporary lease, dhclient's, systemd-networkd's.
 */
const LEASE_GLOBS: Array<{ dir: string; match: RegExp; kind: 'dhclient' | 'networkd' }> = [
  { dir: '/run', match: /^kiln-ephemeral-dhcp\..+\.lease$/, kind: 'dhclient' },
  { dir: '/var/lib/dhcp', match: /\.leases?$/, kind: 'dhclient' },
  { dir: '/var/lib/dhclient', match: /\.leases?$/, kind: 'dhclient' },
  { dir: '/run/systemd/netif/leases', match: /^\d+$/, kind: 'networkd' },
];

/**
 * The wireserver address from the DHCP leases on the target, or the well-known default when none carries option 245.
 */
export async function findWireserver(platform: Platform, log: Log): Promise<string> {
  for (const g of LEASE_GLOBS) {
    let names: string[];
    try {
      names = (await platform.listDir(g.dir)).filter((n) => g.match.test(n)).sort();
    } catch {
      // A lease folder that cannot be listed holds no lease to read.
      continue;
    }
    for (const name of names) {
      const text = (await platform.readTextIfExists(`${g.dir}/${name}`).catch(() => undefined)) ?? '';
      const values =
        g.kind === 'dhclient'
          ? [...text.matchAll(/option\s+unknown-245\s+([^;]+);/g)].map((m) =>
              (m[1] as string).trim().replace(/^"|"$/g, ''),
            )
          : [...text.matchAll(/^OPTION_245=(\S+)$/gm)].map((m) => m[1] as string);
      const last = values.at(-1);
      const ip = last === undefined ? undefined : wireserverFromLeaseValue(last);
      if (ip) {
        log.debug(`Azure: wireserver ${ip} from option 245 in ${g.dir}/${name}`);
        return ip;
      }
    }
  }
  log.debug(`Azure: no lease carries option 245; using the default wireserver ${DEFAULT_WIRESERVER}`);
  return DEFAULT_WIRESERVER;
}

export interface GoalState {
  incarnation: string;
  containerId: string;
  instanceId: string;
  /** URL of the certificates document, when the goal state names one. */
  certificatesUrl?: string;
}

function path(el: XmlElement, names: string[]): XmlElement | undefined {
  let cur: XmlElement | undefined = el;
  for (const n of names) cur = cur ? childrenNamed(cur, '', n)[0] : undefined;
  return cur;
}

/** Reads the goal state document; the three ids the health report needs are required. */
export function parseGoalState(xml: string, where: string): GoalState {
  const root = parseXml(xml, where);
  const text = (names: string[]) => path(root, names)?.text;
  const incarnation = text(['Incarnation']);
  const containerId = text(['Container', 'ContainerId']);
  const instanceId = text(['Container', 'RoleInstanceList', 'RoleInstance', 'InstanceId']);
  for (const [name, v] of [
    ['Incarnation', incarnation],
    ['Container/ContainerId', containerId],
    ['Container/RoleInstanceList/RoleInstance/InstanceId', instanceId],
  ] as const) {
    if (v === undefined) throw new SourceError('Azure', `${where}: the goal state has no ${name}`);
  }
  const certs = text(['Container', 'RoleInstanceList', 'RoleInstance', 'Configuration', 'Certificates']);
  return {
    incarnation: incarnation as string,
    containerId: containerId as string,
    instanceId: instanceId as string,
    ...(certs ? { certificatesUrl: certs } : {}),
  };
}

/** Longest failure description sent (cloud-init trims it so). */
const DESCRIPTION_LIMIT = 512;

/**
 * The health report body, byte for byte as cloud-init's GoalStateHealthReporter writes it: 'Ready', or
 * 'NotReady' with a ProvisioningFailed substatus and a description.
 */
export function healthReport(
  goal: GoalState,
  status: 'Ready' | 'NotReady',
  failure?: { substatus: string; description: string },
): string {
  const detail = failure
    ? `<Details>\n  <SubStatus>${escapeXmlText(failure.substatus)}</SubStatus>\n  <Description>${escapeXmlText(failure.description.slice(0, DESCRIPTION_LIMIT))}</Description>\n</Details>\n`
    : '';
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<Health xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"',
    ' xmlns:xsd="http://www.w3.org/2001/XMLSchema">',
    `  <GoalStateIncarnation>${escapeXmlText(goal.incarnation)}</GoalStateIncarnation>`,
    '  <Container>',
    `    <ContainerId>${escapeXmlText(goal.containerId)}</ContainerId>`,
    '    <RoleInstanceList>',
    '      <Role>',
    `        <InstanceId>${escapeXmlText(goal.instanceId)}</InstanceId>`,
    '        <Health>',
    `          <State>${escapeXmlText(status)}</State>`,
    `          ${detail}`,
    '        </Health>',
    '      </Role>',
    '    </RoleInstanceList>',
    '  </Container>',
    '</Health>',
    '',
  ].join('\n');
}

export interface WireserverOptions {
  client: HttpClient;
  log: Log;
  /** 'http://168.63.129.16' (or a mock's URL), without a trailing slash. */
  baseUrl: string;
  /** Milliseconds one request may take. */
  timeoutMs: number;
  /** Milliseconds between attempts (cloud-init: 5 s). */
  retrySleepMs: number;
  /** Milliseconds after which no further attempt starts (cloud-init: 20 minutes). */
  deadlineMs: number;
  signal?: AbortSignal;
}

/**
 * One wireserver request, repeated every retrySleepMs until it succeeds or the deadline passes (cloud-init's
 * http_with_retries).
 */
async function withRetries(
  opts: WireserverOptions,
  url: string,
  req: { method: 'GET' | 'POST'; body?: string; headers?: Record<string, string> },
): Promise<string> {
  const deadline = Date.now() + opts.deadlineMs;
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await opts.client.fetch(url, {
        method: req.method,
        headers: { ...WIRESERVER_HEADERS, ...(req.headers ?? {}) },
        ...(req.body !== undefined ? { body: req.body } : {}),
        timeoutMs: opts.timeoutMs,
        maxRedirects: 0,
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      if (attempt > 1) opts.log.debug(`Azure: ${req.method} ${url} succeeded after ${attempt} attempts`);
      return res.text();
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      opts.log.debug(`Azure: ${req.method} ${url} failed (attempt ${attempt}): ${err.message}`);
      if (Date.now() + opts.retrySleepMs >= deadline || err.kind === 'budget' || /unreachable/i.test(err.message))
        throw err;
      await abortableSleep(opts.retrySleepMs, opts.signal);
    }
  }
}

/** GETs the goal state (machine/?comp=goalstate). */
export async function fetchGoalState(opts: WireserverOptions): Promise<GoalState> {
  const url = `${opts.baseUrl}/machine/?comp=goalstate`;
  return parseGoalState(await withRetries(opts, url, { method: 'GET' }), url);
}

/** POSTs a health report for GOAL (machine?comp=health). */
export async function postHealth(
  opts: WireserverOptions,
  goal: GoalState,
  status: 'Ready' | 'NotReady',
  failure?: { substatus: string; description: string },
): Promise<void> {
  await withRetries(opts, `${opts.baseUrl}/machine?comp=health`, {
    method: 'POST',
    body: healthReport(goal, status, failure),
    headers: { 'Content-Type': 'text/xml; charset=utf-8' },
  });
}

/** The default user-visible text cloud-init sends with a failure report. */
export const DEFAULT_FAILURE_DESCRIPTION =
  'The VM encountered an error during deployment. Please visit https://aka.ms/linuxprovisioningerror for more information on remediation.';

/** The goal state, then a 'NotReady'/ProvisioningFailed report with DESCRIPTION. */
export async function reportFailure(opts: WireserverOptions, description = DEFAULT_FAILURE_DESCRIPTION): Promise<void> {
  const goal = await fetchGoalState(opts);
  await postHealth(opts, goal, 'NotReady', { substatus: 'ProvisioningFailed', description });
  opts.log.warn('Azure: reported provisioning failure to the fabric');
}

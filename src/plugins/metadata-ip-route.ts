// cloudbase-init's add_metadata_private_ip_route: a /32 route to a link-local metadata host through the default
// gateway.
import type { WindowsSystem } from '../platform/windows/windows-system';
import { describeError } from '../util/errors';
import { HttpClient } from '../util/http';
import type { Log } from '../util/log';

/** The metric cloudbase-init gives the route (utils/network.py check_metadata_ip_route). */
export const METADATA_ROUTE_METRIC = 10;

/** Whether URL answers with a 2xx in one of three tries, as cloudbase-init's check_url. */
export async function metadataUrlAnswers(url: string, log: Log): Promise<boolean> {
  const http = new HttpClient({ log });
  try {
    await http.fetch(url, { retries: 2, timeoutMs: 5000, backoffMs: 100, retryStatuses: [] });
    return true;
  } catch {
    return false; // any failure after the tries is 'does not answer', as check_url's False
  } finally {
    await http.close();
  }
}

/**
 * Before a metadata service is loaded: when its URL's host is link-local (169.254.x.x; Windows does not route
 * those through the gateway), no IPv4 route to that host exists and the URL does not answer, a route to
 * host/32 through the default gateway (the one of lowest metric) on its interface, metric 10, for this boot
 * only (cloudbase-init runs `route add` without -p and checks again at every boot). Failures are logged and
 * ignored, as there. Returns the route added, if any.
 */
export async function ensureMetadataIpRoute(
  windows: WindowsSystem,
  metadataUrl: string,
  log: Log,
  answers: (url: string) => Promise<boolean> = (url) => metadataUrlAnswers(url, log),
): Promise<{ destination: string; nextHop: string; ifIndex: number } | undefined> {
  let host: string;
  try {
    host = new URL(metadataUrl).hostname;
  } catch {
    return undefined; // not a URL: no route to add for it
  }
  if (!host.startsWith('169.254.')) return undefined;
  try {
    const routes = windows.routes('ipv4');
    if (routes.some((r) => r.destination === host)) {
      log.debug(`A route to the metadata host ${host} exists`);
      return undefined;
    }
    // The gateway before the URL (cloudbase-init asks the URL first): without one nothing is added either way.
    const gateway = routes
      .filter((r) => r.destination === '0.0.0.0' && r.prefixLength === 0)
      .sort((a, b) => a.metric - b.metric)[0];
    if (!gateway) {
      log.debug(`No default gateway to route the metadata host ${host} through`);
      return undefined;
    }
    if (await answers(metadataUrl)) return undefined;
    const luid = windows.netAdapters().find((a) => a.ifIndex === gateway.ifIndex)?.luid ?? 0n;
    log.info(`Adding a route to the metadata host ${host}/32 via ${gateway.nextHop} (interface ${gateway.ifIndex})`);
    windows.addRoute(
      { luid, ifIndex: gateway.ifIndex },
      { destination: host, prefixLength: 32, nextHop: gateway.nextHop, family: 'ipv4', metric: METADATA_ROUTE_METRIC },
    );
    return { destination: host, nextHop: gateway.nextHop, ifIndex: gateway.ifIndex };
  } catch (err) {
    log.warn(`Cannot add a route to the metadata host ${host}: ${describeError(err)}`);
    return undefined;
  }
}

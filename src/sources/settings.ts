// Reading a source's settings (config `datasource: {<Name>: {...}}`) into typed values, with cloud-init's defaults.
import { SourceError } from './source-error';

export interface UrlSettings {
  metadataUrls: string[];
  /** Seconds per request. */
  timeout: number;
  /** Seconds for the whole wait for an endpoint; 0 or less: only the retries bound it. */
  maxWait: number;
  retries: number;
}

export function sourceSettings(config: Record<string, unknown>, name: string): Record<string, unknown> {
  const ds = config.datasource;
  if (ds && typeof ds === 'object' && !Array.isArray(ds)) {
    const own = (ds as Record<string, unknown>)[name];
    if (own && typeof own === 'object' && !Array.isArray(own)) return own as Record<string, unknown>;
  }
  return {};
}

function num(source: string, settings: Record<string, unknown>, key: string, fallback: number): number {
  const v = settings[key];
  if (v === undefined || v === null) return fallback;
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || Number.isNaN(n))
    throw new SourceError(source, `datasource.${source}.${key} must be a number, not ${JSON.stringify(v)}`);
  return n;
}

export function readUrlSettings(
  source: string,
  settings: Record<string, unknown>,
  defaults: UrlSettings,
  baseUrl?: string,
): UrlSettings {
  let urls = defaults.metadataUrls;
  const given = settings.metadata_urls;
  if (given !== undefined) {
    if (!Array.isArray(given) || !given.every((u) => typeof u === 'string'))
      throw new SourceError(source, `datasource.${source}.metadata_urls must be a list of URLs`);
    urls = given as string[];
  }
  if (baseUrl) urls = [baseUrl];
  return {
    metadataUrls: urls.map((u) => u.replace(/\/+$/, '')),
    timeout: num(source, settings, 'timeout', defaults.timeout),
    maxWait: num(source, settings, 'max_wait', defaults.maxWait),
    retries: num(source, settings, 'retries', defaults.retries),
  };
}

export function boolSetting(settings: Record<string, unknown>, key: string, fallback: boolean): boolean {
  const v = settings[key];
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return !/^(false|no|off|0)$/i.test(v);
  return fallback;
}

/**
 * The URL settings of a source whose cloud-init key `metadata_url` is the whole document URL (DigitalOcean,
 * UpCloud, NWCS): that URL as given, unless a base URL (the CLI's or cloudbase-init's) or kiln's base
 * `metadata_urls` is set, whose entries then get PATH appended.
 */
export function wholeUrlSettings(
  source: string,
  settings: Record<string, unknown>,
  defaults: UrlSettings,
  path: string,
  baseUrl?: string,
): UrlSettings {
  const s = readUrlSettings(source, settings, defaults, baseUrl);
  const given = settings.metadata_url;
  if (given !== undefined && typeof given !== 'string')
    throw new SourceError(source, `datasource.${source}.metadata_url must be a URL, not ${JSON.stringify(given)}`);
  const whole = typeof given === 'string' && !baseUrl && settings.metadata_urls === undefined;
  return { ...s, metadataUrls: whole ? [given] : s.metadataUrls.map((u) => `${u}${path}`) };
}

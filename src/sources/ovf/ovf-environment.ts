// An OVF environment document (ovf-env.xml) read into meta-data, user data and config, as cloud-init's
// read_ovf_environment does.
import { readYaml } from '../../config/read-yaml';
import type { Log } from '../../util/log';
import { SourceError } from '../source-error';
import { parseXml, XmlError, type XmlElement } from '../../util/xml-reader';

export const OVF_ENV_NS = 'http://schemas.dmtf.org/ovf/environment/1';
/** The file names cloud-init looks for, in its order. */
export const OVF_ENV_NAMES = ['ovf-env.xml', 'ovf_env.xml', 'OVF_ENV.XML', 'OVF-ENV.XML'];

export interface OvfEnvironment {
  /**
   * `seedfrom`, `local-hostname` (from `hostname` too), `public-keys`, `instance-id`, and `network-config` when read.
   */
  metadata: Record<string, unknown>;
  userData?: Uint8Array;
  /** `password`, which cloud-init hands on as cloud-config. A secret. */
  config: Record<string, unknown>;
}

/** The `oe:key`/`oe:value` attribute in the environment namespace (or, kiln's leniency, the same name unprefixed). */
function attr(el: XmlElement, local: string): string | undefined {
  const inNs = Object.keys(el.attributes).find(
    (n) => el.attributeNs[n] === OVF_ENV_NS && n.slice(n.indexOf(':') + 1) === local,
  );
  return el.attributes[inNs ?? local];
}

/** The document element of XML, an XML error being the source's error (it names the document and line). */
export function parseOvfXml(xml: string, source: string): XmlElement {
  try {
    return parseXml(xml, source);
  } catch (err) {
    if (err instanceof XmlError) throw new SourceError('OVF', err.message, { cause: err });
    throw err;
  }
}

/** The properties of the first PropertySection under Environment, as cloud-init's get_properties. */
export function ovfProperties(xml: string, source: string): Map<string, string> {
  const root = parseOvfXml(xml, source);
  if (root.local !== 'Environment')
    throw new SourceError('OVF', `${source}: the document element is <${root.qname}>, not an OVF <Environment>`);
  const section = root.children.find((c) => c.local === 'PropertySection');
  if (!section) throw new SourceError('OVF', `${source}: <Environment> has no <PropertySection>`);
  const props = new Map<string, string>();
  section.children
    .filter((c) => c.local === 'Property')
    .forEach((p, i) => {
      const key = attr(p, 'key');
      const value = attr(p, 'value');
      if (key === undefined || value === undefined)
        throw new SourceError(
          'OVF',
          `${source}: Property ${i + 1} of the PropertySection lacks oe:${key === undefined ? 'key' : 'value'}`,
        );
      props.set(key, value);
    });
  return props;
}

/**
 * Python's b64decode as cloud-init calls it: undefined when the text is not base64 (wrong padding, stray characters).
 */
function base64OrUndefined(text: string): Buffer | undefined {
  const compact = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) return undefined;
  return Buffer.from(compact, 'base64');
}

/**
 * XML → meta-data, user data and config. READ_NETWORK: the `network-config` property (base64 YAML, its `network`
 * key) is read, as cloud-init does for the guestinfo and ISO transports but not for the seed folder.
 */
export function readOvfEnvironment(xml: string, source: string, log: Log, readNetwork: boolean): OvfEnvironment {
  const env: OvfEnvironment = { metadata: {}, config: {} };
  for (const [rawKey, value] of ovfProperties(xml, source)) {
    const key = rawKey === 'hostname' ? 'local-hostname' : rawKey;
    if (['seedfrom', 'local-hostname', 'public-keys', 'instance-id'].includes(key)) env.metadata[key] = value;
    else if (key === 'password') env.config.password = value;
    else if (key === 'network-config' && readNetwork) {
      const bytes = base64OrUndefined(value);
      let parsed: unknown;
      try {
        parsed = bytes ? readYaml(bytes.toString('utf8'), `${source} network-config`) : undefined;
      } catch {
        // A network-config that is not YAML is no network config, as cloud-init reads it.
        parsed = undefined;
      }
      const network =
        parsed && typeof parsed === 'object' && !Array.isArray(parsed)
          ? (parsed as Record<string, unknown>).network
          : undefined;
      // cloud-init ignores a network-config it cannot read (a DEBUG line), so does kiln, louder.
      if (network === undefined)
        log.warn(
          `${source}: the network-config property is not base64 YAML with a 'network' key; ignored, as cloud-init does`,
        );
      else env.metadata['network-config'] = network;
    } else if (key === 'user-data') {
      // Base64 when it decodes, else the text itself, as cloud-init.
      env.userData = base64OrUndefined(value) ?? Buffer.from(value, 'utf8');
    }
  }
  return env;
}

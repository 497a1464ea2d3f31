// CloudSigma: the server context read over the serial port /dev/ttyS1 with cloud-init's cepko request (`<\n\n>`), one
// JSON line back; detected from the DMI product name.
import type { CrawlContext, Datasource, DetectContext, InstanceData } from './datasource';
import { LineChannelClosedError, LineTimeoutError, openSerialChannel, type LineChannel } from '../util/line-channel';
import { parseJson } from './json-document';
import { SourceError } from './source-error';
import { describeError } from '../util/errors';
import type { MockFiles, MockSerialHost, SerialMockService } from './mock-service';

export const CLOUDSIGMA_SERIAL_PORT = '/dev/ttyS1';
/** cepko's READ_TIMEOUT: the context can be large. */
const READ_TIMEOUT_S = 60;

/** ds-identify's dscheck_CloudSigma: the DMI product name is `CloudSigma`. */
function onCloudSigma(ctx: DetectContext): boolean {
  return ctx.dmi.product_name === 'CloudSigma';
}

/** cepko's request for one path of the server context ('' is all of it). */
export function cepkoRequest(path: string): string {
  return `<\n${path}\n>`;
}

function timeoutSetting(settings: Record<string, unknown>): number {
  const v = settings.serial_timeout;
  if (v === undefined) return READ_TIMEOUT_S;
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0)
    throw new SourceError(
      'CloudSigma',
      `datasource.CloudSigma.serial_timeout must be a number of seconds, not ${JSON.stringify(v)}`,
    );
  return n;
}

function deviceSetting(settings: Record<string, unknown>): string {
  const v = settings.serial_device;
  if (v === undefined) return CLOUDSIGMA_SERIAL_PORT;
  if (typeof v !== 'string' || !v.startsWith('/'))
    throw new SourceError(
      'CloudSigma',
      `datasource.CloudSigma.serial_device must be an absolute path, not ${JSON.stringify(v)}`,
    );
  return v;
}

/** The whole server context, as cepko's all(): one request, one line back (ending in EOT and newline). */
async function readServerContext(ctx: CrawlContext, device: string, timeoutMs: number): Promise<unknown> {
  let channel: LineChannel;
  try {
    channel = openSerialChannel(ctx.platform.hostPath(device), ctx.platform.makeTtyRaw?.bind(ctx.platform), ctx.log);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new SourceError(
      'CloudSigma',
      code === 'ENOENT' ? `no serial port ${device}` : `cannot open ${device}: ${describeError(err)}`,
      { cause: err },
    );
  }
  const onAbort = () => void channel.close();
  ctx.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await channel.write(cepkoRequest(''));
    const line = await channel.readLine(timeoutMs);
    const text = line.replace(/^[\x04\n]+|[\x04\n]+$/g, '');
    return parseJson('CloudSigma', { text, where: `the server context from ${device}` });
  } catch (err) {
    if (err instanceof LineTimeoutError || err instanceof LineChannelClosedError)
      throw new SourceError('CloudSigma', `unable to read the server context from ${device}: ${err.message}`, {
        cause: err,
      });
    throw err;
  } finally {
    ctx.signal?.removeEventListener('abort', onAbort);
    await channel.close();
  }
}

/** A deliberate fault of the mock host (`devel serve-metadata --kind cloudsigma`), on every request. */
export type CloudSigmaMisbehaviour = 'silent' | 'garbage' | 'hang-up' | 'no-newline';

/**
 * The host agent of `devel serve-metadata --kind cloudsigma`: the server context (the folder's context.json) answered
 * to cepko requests `<\n{path}\n>` on a stream, one line ending in EOT; strings as they are, anything else as JSON, a
 * missing path an empty line, as the host gives. `requests` holds the paths asked for.
 */
export function cloudSigmaMockHost(files: MockFiles, misbehave?: CloudSigmaMisbehaviour): MockSerialHost {
  const requests: string[] = [];
  const answer = async (path: string): Promise<string> => {
    const text = await files.read('context.json');
    if (text === undefined) throw new Error("the mock's context.json is missing");
    let value: unknown = JSON.parse(Buffer.from(text).toString('utf8'));
    for (const part of path.split('/').filter(Boolean))
      value = value && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
    return `${value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value)}\x04\n`;
  };
  return {
    requests,
    serve(stream) {
      let pending = '';
      stream.onData(async (chunk) => {
        pending += Buffer.from(chunk).toString('latin1');
        let m: RegExpExecArray | null;
        while ((m = /<\n([^\n]*)\n>/.exec(pending))) {
          pending = pending.slice(m.index + m[0].length);
          const path = m[1] as string;
          requests.push(path);
          if (misbehave === 'silent') continue;
          if (misbehave === 'hang-up') return void stream.destroy();
          if (misbehave === 'garbage') {
            stream.write('Welcome to the serial console\x04\n');
            continue;
          }
          const reply = await answer(path);
          stream.write(misbehave === 'no-newline' ? reply.slice(0, -1) : reply);
        }
      });
    },
  };
}

const cloudSigmaMock: SerialMockService = {
  kind: 'cloudsigma',
  transport: 'serial',
  host: (files) => cloudSigmaMockHost(files),
};

export const cloudSigmaSource: Datasource = {
  mock: cloudSigmaMock,
  name: 'CloudSigma',
  kind: 'local',
  async detect(ctx: DetectContext) {
    return onCloudSigma(ctx);
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    if (!onCloudSigma(ctx))
      throw new SourceError('CloudSigma', `the DMI product name is '${ctx.dmi.product_name ?? ''}', not CloudSigma`);
    const device = deviceSetting(ctx.settings);
    const context = await readServerContext(ctx, device, timeoutSetting(ctx.settings) * 1000);
    return cloudSigmaInstanceData(context, device);
  },
};

/**
 * cloud-init's DataSourceCloudSigma on a server context: `meta` for user data and the key, `vendor_data.cloudinit`,
 * `uuid` and `name`.
 */
export function cloudSigmaInstanceData(context: unknown, device = CLOUDSIGMA_SERIAL_PORT): InstanceData {
  if (!context || typeof context !== 'object' || Array.isArray(context))
    throw new SourceError('CloudSigma', `the server context from ${device} is not a JSON object`);
  const sc = context as Record<string, unknown>;
  const meta = sc.meta;
  if (!meta || typeof meta !== 'object' || Array.isArray(meta))
    throw new SourceError('CloudSigma', `the server context from ${device} has no 'meta' object`);
  const m = meta as Record<string, unknown>;
  const uuid = sc.uuid;
  if (typeof uuid !== 'string' || !uuid)
    throw new SourceError('CloudSigma', `the server context from ${device} has no 'uuid'`);
  const base64Fields = typeof m.base64_fields === 'string' ? m.base64_fields.split(',') : [];
  const raw = m['cloudinit-user-data'];
  let userData: Uint8Array | undefined;
  if (typeof raw === 'string' && raw) {
    if (base64Fields.includes('cloudinit-user-data')) {
      if (raw.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(raw))
        throw new SourceError('CloudSigma', "meta 'cloudinit-user-data' is listed in base64_fields but is not base64");
      userData = new Uint8Array(Buffer.from(raw, 'base64'));
    } else userData = new Uint8Array(Buffer.from(raw, 'utf8'));
  }
  // cloud-init's get_hostname: the server's name when its characters are all in [A-Za-z0-9 -_.] (that
  // ' -_' is the range from space to underscore, as in cloud-init's pattern), else the uuid's first part.
  const name = typeof sc.name === 'string' ? sc.name : '';
  const hostname = /^[A-Za-z0-9 -_.]+$/.test(name) ? name.slice(0, 61) : (uuid.split('-')[0] as string);
  const key = m.ssh_public_key;
  const data: InstanceData = {
    instanceId: uuid,
    cloudName: 'cloudsigma',
    platform: 'cloudsigma',
    subplatform: `cepko (${CLOUDSIGMA_SERIAL_PORT})`,
    localHostname: hostname,
    publicKeys: typeof key === 'string' && key ? [key] : [],
    metadata: sc,
    // The console's VNC password is in the context; cloud-init shows it to every reader of instance-data.json.
    sensitiveKeys: ['vnc_password'],
  };
  if (userData?.length) data.userData = userData;
  const vendor = sc.vendor_data;
  if (vendor && typeof vendor === 'object' && typeof (vendor as Record<string, unknown>).cloudinit === 'string') {
    data.vendorData = new Uint8Array(Buffer.from((vendor as Record<string, string>).cloudinit as string, 'utf8'));
  }
  return data;
}

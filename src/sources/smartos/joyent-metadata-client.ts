// The guest side of the Joyent metadata protocol V2 (eng.joyent.com/mdata/protocol.html) over a line channel:
// NEGOTIATE, framed GET/KEYS requests with request ids and CRC-32, base64 payloads.
import { randomBytes } from 'node:crypto';
import { crc32 } from '../../util/crc32';
import type { Log } from '../../util/log';
import { LineTimeoutError, type LineChannel } from '../../util/line-channel';
import { SourceError } from '../source-error';
import { describeError } from '../../util/errors';

/**
 * cloud-init's frame (matched from the start only, as Python's re.match; the length check catches trailing bytes): `V2
 * <length> <crc32> <request id> SUCCESS|NOTFOUND[ <base64 payload>]`.
 */
const FRAME = /^V2 (\d+) ([0-9a-f]+) (([0-9a-f]+) (SUCCESS|NOTFOUND)( (.+))?)/;

/** The protocol's checksum: CRC-32 of the frame body as lowercase 8-digit hex. */
export function frameChecksum(body: string): string {
  return crc32(Buffer.from(body, 'utf8')).toString(16).padStart(8, '0');
}

/** One request frame line (with its newline), as the guest sends it. */
export function requestFrame(requestId: string, type: string, param?: string): string {
  const body = param ? `${requestId} ${type} ${Buffer.from(param, 'utf8').toString('base64')}` : `${requestId} ${type}`;
  return `V2 ${Buffer.byteLength(body, 'utf8')} ${frameChecksum(body)} ${body}\n`;
}

/** Decodes base64 as Python's b64decode does by default: characters outside the alphabet are an error. */
function strictBase64(text: string, what: string): string {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text))
    throw new SourceError('SmartOS', `${what} is not base64`);
  return Buffer.from(text, 'base64').toString('utf8');
}

export class JoyentMetadataClient {
  constructor(
    private readonly channel: LineChannel,
    /** How long one answer may take (cloud-init's serial_timeout; 60 s). */
    private readonly timeoutMs: number,
    private readonly log: Log,
    /** Where the conversation happens, for messages: '/dev/ttyS1', '/native/.zonecontrol/metadata.sock'. */
    private readonly where: string,
  ) {}

  private async readLine(what: string, timeoutMs = this.timeoutMs): Promise<string> {
    try {
      return await this.channel.readLine(timeoutMs);
    } catch (err) {
      if (err instanceof LineTimeoutError)
        throw new SourceError(
          'SmartOS',
          `${this.where}: ${what}: ${err.message}; is the host's metadata service running?`,
          { cause: err },
        );
      throw new SourceError('SmartOS', `${this.where}: ${what}: ${describeError(err)}`, { cause: err });
    }
  }

  /**
   * The serial port's resynchronisation: drop whatever is pending, then send empty lines until the host answers
   * 'invalid command' (retrying on 'FAILURE'), as cloud-init's _flush, but within the answer timeout.
   */
  async flush(): Promise<void> {
    for (;;) {
      try {
        await this.channel.readLine(100);
      } catch (err) {
        if (err instanceof LineTimeoutError) break;
        throw new SourceError('SmartOS', `${this.where}: flushing input: ${describeError(err)}`, { cause: err });
      }
    }
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      await this.channel.write('\n');
      const left = deadline - Date.now();
      let answer: string;
      try {
        answer = await this.channel.readLine(Math.max(1, Math.min(5000, left)));
      } catch (err) {
        if (!(err instanceof LineTimeoutError))
          throw new SourceError('SmartOS', `${this.where}: ${describeError(err)}`, { cause: err });
        if (Date.now() >= deadline)
          throw new SourceError(
            'SmartOS',
            `${this.where}: no 'invalid command' answer to an empty line within ${this.timeoutMs / 1000} s; is the host's metadata service running?`,
          );
        this.log.warn(
          `SmartOS: timeout while initializing the metadata client on ${this.where}; is the host metadata service running?`,
        );
        continue;
      }
      if (answer === 'invalid command') return;
      if (answer !== 'FAILURE')
        this.log.warn(`SmartOS: unexpected answer '${answer.slice(0, 200)}' while flushing ${this.where}`);
      if (Date.now() >= deadline)
        throw new SourceError(
          'SmartOS',
          `${this.where}: no 'invalid command' answer to an empty line within ${this.timeoutMs / 1000} s (last: '${answer.slice(0, 200)}')`,
        );
    }
  }

  async negotiate(): Promise<void> {
    await this.channel.write('NEGOTIATE V2\n');
    const answer = await this.readLine('NEGOTIATE V2');
    if (answer !== 'V2_OK')
      throw new SourceError(
        'SmartOS',
        `${this.where}: invalid answer '${answer.slice(0, 200)}' to 'NEGOTIATE V2' (the host must speak protocol V2)`,
      );
  }

  /**
   * One request; the decoded payload, or undefined for NOTFOUND, SUCCESS without a payload, or any answer without
   * SUCCESS (as cloud-init).
   */
  async request(type: 'GET' | 'KEYS', param?: string): Promise<string | undefined> {
    const requestId = randomBytes(4).toString('hex');
    await this.channel.write(requestFrame(requestId, type, param));
    const what = `${type}${param ? ` ${param}` : ''}`;
    const answer = await this.readLine(what);
    if (!answer.includes('SUCCESS')) return undefined;
    const m = FRAME.exec(answer);
    if (!m)
      throw new SourceError(
        'SmartOS',
        `${this.where}: the answer to ${what} is not a V2 frame: '${answer.slice(0, 200)}'`,
      );
    const [, length, checksum, body, id, , , payload] = m as unknown as [
      string,
      string,
      string,
      string,
      string,
      string,
      string | undefined,
      string | undefined,
    ];
    if (Number(length) !== body.length)
      throw new SourceError(
        'SmartOS',
        `${this.where}: incorrect frame length in the answer to ${what} (${length} != ${body.length})`,
      );
    const expected = frameChecksum(body);
    if (checksum !== expected)
      throw new SourceError(
        'SmartOS',
        `${this.where}: invalid checksum in the answer to ${what} (expected ${expected}, got ${checksum})`,
      );
    if (id !== requestId)
      throw new SourceError(
        'SmartOS',
        `${this.where}: request id mismatch in the answer to ${what} (expected ${requestId}, got ${id})`,
      );
    if (!payload) return undefined;
    return strictBase64(payload, `the payload of the answer to ${what}`);
  }

  /** The value of KEY (stripped of surrounding whitespace when STRIP), undefined when the host has none. */
  async get(key: string, strip = false): Promise<string | undefined> {
    const v = await this.request('GET', key);
    if (v === undefined) return undefined;
    return strip ? v.trim() : v;
  }

  /** KEY's value parsed as JSON; undefined when the host has none. */
  async getJson(key: string): Promise<unknown> {
    const v = await this.get(key);
    if (v === undefined) return undefined;
    try {
      return JSON.parse(v);
    } catch (err) {
      throw new SourceError('SmartOS', `${this.where}: the value of ${key} is not JSON: ${describeError(err)}`);
    }
  }

  /** The names of every key the host holds. */
  async keys(): Promise<string[]> {
    const v = await this.request('KEYS');
    return v ? v.split('\n') : [];
  }
}

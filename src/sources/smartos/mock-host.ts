// SmartOS's host metadata agent as `devel serve-metadata --kind smartos --socket PATH` answers it: the Joyent protocol
// V2 answered from a folder of keys (one file a key), misbehaving on request.
import { crc32 } from '../../util/crc32';
import type { MockFiles, MockSerialHost, MockStream, SerialMockService } from '../mock-service';

/** A deliberate fault of the host, applied to the answer to every request for KEY (all keys when unset). */
export interface SmartOsMisbehaviour {
  kind: 'bad-checksum' | 'wrong-request-id' | 'bad-length' | 'silent' | 'garbage' | 'hang-up' | 'no-v2' | 'not-base64';
  key?: string;
}

/** The host: `requests` holds each line the guest sent, in order; `gets` the keys asked for with GET. */
export interface SmartOsMockHost extends MockSerialHost {
  readonly gets: string[];
}

const checksum = (body: string) => crc32(Buffer.from(body, 'utf8')).toString(16).padStart(8, '0');
const frame = (body: string) => `V2 ${Buffer.byteLength(body)} ${checksum(body)} ${body}\n`;

/**
 * The host for FILES (one file per key: sdc:uuid, user-script …; the file's bytes are the value). Its answer to one
 * LINE from the guest (without its newline) is '' to stay silent, or null to hang up: an empty line is 'invalid
 * command' (the serial resync), NEGOTIATE V2 is V2_OK, a V2 frame with a good length and checksum is answered SUCCESS
 * with the base64 value or NOTFOUND; anything else is 'invalid command'.
 */
export function smartOsMockHost(files: MockFiles, misbehave: SmartOsMisbehaviour[] = []): SmartOsMockHost {
  const requests: string[] = [];
  const gets: string[] = [];
  const rule = (key?: string) => misbehave.find((m) => m.key === undefined || m.key === key);
  const answer = async (line: string): Promise<string | null> => {
    requests.push(line);
    if (line === '') return 'invalid command\n';
    if (line === 'NEGOTIATE V2') return rule()?.kind === 'no-v2' ? 'FAILURE\n' : 'V2_OK\n';
    const m = /^V2 (\d+) ([0-9a-f]{8}) (([0-9a-f]+) (GET|KEYS|PUT)( (\S+))?)$/.exec(line);
    if (!m) return 'invalid command\n';
    const [, length, sum, body, id, type, , param] = m as unknown as [
      string,
      string,
      string,
      string,
      string,
      string,
      string | undefined,
      string | undefined,
    ];
    if (Number(length) !== Buffer.byteLength(body) || sum !== checksum(body)) return 'invalid command\n';
    const key = param ? Buffer.from(param, 'base64').toString('utf8') : undefined;
    let value: Buffer | undefined;
    if (type === 'KEYS')
      value = Buffer.from(
        ((await files.list('')) ?? [])
          .filter((e) => !e.folder)
          .map((e) => e.name)
          .join('\n'),
      );
    else if (type === 'GET' && key !== undefined && !key.includes('/') && key !== '.' && key !== '..') {
      gets.push(key);
      const bytes = await files.read(key);
      value = bytes === undefined ? undefined : Buffer.from(bytes);
    }
    const fault = rule(key)?.kind;
    if (fault === 'silent') return '';
    if (fault === 'hang-up') return null;
    if (fault === 'garbage') return 'V2 this is not a frame SUCCESS\n';
    const answerId = fault === 'wrong-request-id' ? (id === '00000000' ? '00000001' : '00000000') : id;
    // An empty value is SUCCESS without a payload (the guest takes it as no value, as cloud-init does).
    const payload = fault === 'not-base64' ? '!!not*base64!!' : value?.length ? value.toString('base64') : '';
    const answerBody =
      value === undefined ? `${answerId} NOTFOUND` : payload ? `${answerId} SUCCESS ${payload}` : `${answerId} SUCCESS`;
    if (fault === 'bad-checksum')
      return `V2 ${Buffer.byteLength(answerBody)} ${checksum(`${answerBody}x`)} ${answerBody}\n`;
    if (fault === 'bad-length')
      return `V2 ${Buffer.byteLength(answerBody) + 1} ${checksum(answerBody)} ${answerBody}\n`;
    return frame(answerBody);
  };
  return {
    requests,
    gets,
    /** Answers each connection line by line (the serial port seen from the host, or the zone socket). */
    serve(stream: MockStream) {
      let pending = '';
      let chain = Promise.resolve();
      stream.onData((chunk) => {
        pending += Buffer.from(chunk).toString('latin1');
        let nl: number;
        while ((nl = pending.indexOf('\n')) >= 0) {
          // A strict host: a CR the guest's tty added stays in the line, and the frame then fails its checks.
          const line = pending.slice(0, nl);
          pending = pending.slice(nl + 1);
          chain = chain.then(async () => {
            if (stream.destroyed) return;
            const reply = await answer(line);
            if (reply === null) stream.destroy();
            else if (reply) stream.write(reply);
          });
        }
      });
    },
  };
}

export const smartOsMock: SerialMockService = {
  kind: 'smartos',
  transport: 'serial',
  socketHint: 'ROOT/native/.zonecontrol/metadata.sock',
  host: (files) => smartOsMockHost(files),
};

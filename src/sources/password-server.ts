// The CloudStack password server (port 8080 of the virtual router; Exoscale runs one too): ask with `DomU_Request:
// send_my_password`, acknowledge with `saved_password`.
import { HttpError, type HttpClient } from '../util/http';
import type { Log } from '../util/log';
import { SourceError } from './source-error';
import { describeError } from '../util/errors';

/** The server's answer when the password was already taken (and acknowledged) before. */
export const SAVED_PASSWORD = 'saved_password';
/** The server's answer to a request it did not understand. */
export const BAD_REQUEST = 'bad_request';

export interface PasswordServerOptions {
  source: string;
  /** The URL the server answers at: 'http://VR:8080/' (CloudStack) or 'http://169.254.169.254:8080/1.0/' (Exoscale). */
  url: string;
  client: HttpClient;
  log: Log;
  timeoutMs: number;
  /** Attempts after the first, for each of the two requests. */
  retries: number;
  signal?: AbortSignal;
  /**
   * Whose rules: cloud-init takes an empty answer as "no password" at once and drops the password when the
   * acknowledgement fails; cloudbase-init asks again (retries + 1 times in all) on an empty answer, takes
   * `bad_request` as "no password", repeats the acknowledgement while it is refused, and keeps the password
   * either way.
   */
  flavour: 'cloud-init' | 'cloudbase-init';
}

async function ask(o: PasswordServerOptions, request: 'send_my_password' | typeof SAVED_PASSWORD): Promise<string> {
  const res = await o.client.fetch(o.url, {
    headers: { DomU_Request: request },
    timeoutMs: o.timeoutMs,
    retries: o.retries,
    maxBytes: 64 * 1024,
    ...(o.signal ? { signal: o.signal } : {}),
  });
  return res.text().trim();
}

function unreachable(o: PasswordServerOptions, what: string) {
  return (err: unknown): never => {
    throw err instanceof HttpError
      ? new SourceError(o.source, `the password server at ${o.url} did not answer ${what}: ${err.message}`, {
          cause: err,
        })
      : err;
  };
}

/**
 * The password the server holds for this VM, acknowledged so that the server forgets it; undefined when it has
 * none (an empty answer, or `saved_password`: taken before). Under cloud-init's rules `bad_request` is an error
 * (its CloudStack client raises; the caller logs it and goes on without a password), and so is a failed
 * acknowledgement. Only after a password was given is `saved_password` sent.
 */
export async function fetchVmPassword(o: PasswordServerOptions): Promise<string | undefined> {
  const cloudbase = o.flavour === 'cloudbase-init';
  let password: string | undefined;
  for (let i = 0; i < (cloudbase ? o.retries + 1 : 1) && password === undefined; i++) {
    const answer = await ask(o, 'send_my_password').catch(unreachable(o, 'send_my_password'));
    if (answer === BAD_REQUEST) {
      if (!cloudbase)
        throw new SourceError(o.source, `the password server at ${o.url} answered bad_request to send_my_password`);
      o.log.error(`${o.source}: the password server at ${o.url} did not recognise the request (bad_request)`);
      return undefined;
    }
    if (answer === SAVED_PASSWORD) {
      o.log.debug(`${o.source}: the password server says the password was already taken (saved_password)`);
      return undefined;
    }
    if (answer !== '') password = answer;
    else o.log.debug(`${o.source}: the password server holds no password for this VM`);
  }
  if (password === undefined) return undefined;
  if (!cloudbase) {
    // cloud-init's request for the acknowledgement raises on failure, and the password is then not used.
    await ask(o, SAVED_PASSWORD).catch(unreachable(o, 'saved_password'));
    return password;
  }
  for (let i = 0; i <= o.retries; i++) {
    const ack = await ask(o, SAVED_PASSWORD).catch((err: unknown) => {
      o.log.debug(`${o.source}: acknowledging the password failed: ${describeError(err)}`);
      return BAD_REQUEST;
    });
    if (ack !== BAD_REQUEST) return password;
  }
  o.log.error(
    `${o.source}: the password server at ${o.url} did not take the acknowledgement (saved_password); it may give the password out again`,
  );
  return password;
}

/**
 * The cloud-config cloud-init's CloudStack and Exoscale sources contribute for a password: password login, the
 * password, no expiry.
 */
export function passwordCloudConfig(password: string): Record<string, unknown> {
  return { ssh_pwauth: true, password, chpasswd: { expire: false } };
}

// The mock of CloudStack's (and Exoscale's) password server: hands out DIR/password once per `send_my_password` until
// the client acknowledges it with `saved_password`.
import { promises as fsp } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { posix } from 'node:path';

export interface PasswordAnswer {
  status: number;
  body: string;
}

/** What the mock saw of the protocol, for tests: the acknowledgement must follow a password handed out. */
export interface PasswordServerState {
  handedOut: number;
  acknowledged: boolean;
  /** Acknowledgements that came before any password was handed out (a client bug). */
  strayAcks: number;
}

/**
 * The rules of one password server over the tree at ROOT. The password is ROOT/password (none: the server
 * answers empty, as for a VM without a password); once acknowledged, `send_my_password` answers
 * `saved_password`. A password file holding exactly `bad_request` makes every answer `bad_request` (a server
 * that does not understand the client). Any other DomU_Request value is a `bad_request`, as the real one answers.
 */
export function passwordServerRules(root: string): {
  answer(req: IncomingMessage): Promise<PasswordAnswer>;
  state: PasswordServerState;
} {
  const state: PasswordServerState = { handedOut: 0, acknowledged: false, strayAcks: 0 };
  const answer = async (req: IncomingMessage): Promise<PasswordAnswer> => {
    const request = String(req.headers.domu_request ?? '').trim();
    const password = await fsp.readFile(posix.join(root, 'password'), 'utf8').then(
      (t) => t.replace(/\r?\n$/, ''),
      () => undefined,
    );
    if (password === 'bad_request') return { status: 200, body: 'bad_request' };
    if (request === 'send_my_password') {
      if (state.acknowledged) return { status: 200, body: 'saved_password' };
      if (password === undefined || password === '') return { status: 200, body: '' };
      state.handedOut++;
      return { status: 200, body: password };
    }
    if (request === 'saved_password') {
      if (state.handedOut === 0) {
        state.strayAcks++;
        return { status: 200, body: 'bad_request' };
      }
      state.acknowledged = true;
      return { status: 200, body: 'saved_password' };
    }
    return { status: 200, body: 'bad_request' };
  };
  return { answer, state };
}

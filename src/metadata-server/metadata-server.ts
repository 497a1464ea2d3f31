// A local metadata service serving a cloud's tree from a folder over HTTP or a unix socket, answering by the rules its
// cloud registers (sources/mock-service.ts), with a phone-home endpoint and, for the clouds that have one, a password
// server; misbehaving on request.
import { promises as fsp } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { posix } from 'node:path';
import type { HttpMockService, MockAnswer, MockRequest } from '../sources/mock-service';
import { folderFiles, runInScratch } from './mock-files';
import { passwordServerRules, type PasswordServerState } from './password-server';
import { readRequestBody } from './request-body';
import { httpServeKind, type MetadataKind } from './serve-kinds';
import { describeError } from '../util/errors';

/** One deliberate fault. Rules match by path prefix; `times` limits how often a rule fires (default: always). */
export interface Misbehaviour {
  kind: 'delay' | 'status' | 'truncate' | 'oversize' | 'redirect-loop' | 'redirect-other-host' | 'drop' | 'wrong-type';
  /** Path prefix the rule applies to (default: every path). */
  path?: string;
  /** How many requests the rule affects before the server behaves (default: every one). */
  times?: number;
  /** delay: milliseconds; status: the code (500, 503, 404 …); oversize: bytes sent. */
  value?: number;
}

export interface MetadataServerOptions {
  kind: MetadataKind;
  /** Folder served as the tree root (see docs/datasources.md for the layouts). */
  dir: string;
  /** '127.0.0.1' by default; port 0 picks a free one. */
  host?: string;
  port?: number;
  /**
   * Listen on this unix socket instead of host:port (the kinds whose transport is 'http-socket'); an old socket file
   * there is replaced.
   */
  socketPath?: string;
  misbehave?: Misbehaviour[];
  /**
   * IMDSv2's rules, for the kinds that have them: 'required' answers 401 without a token; 'optional' (default) accepts
   * IMDSv1; 'disabled' answers 403 to PUT token.
   */
  imdsv2?: 'required' | 'optional' | 'disabled';
  /** Tokens stop being valid after this many uses (to test re-fetching on 401). */
  tokenUses?: number;
  /**
   * Serve DIR/<the address the client connected to>/ where that folder exists: one server answering as many
   * machines (127.0.0.N in a private network namespace), each with its own instance id.
   */
  perAddress?: boolean;
  /** Told of every request as it is answered or dropped. */
  onRequest?: (r: RequestRecord) => void;
  /** Told of every report posted to /phone-home (cc_phone_home's `url: http://HOST/phone-home/$INSTANCE_ID`). */
  onPhoneHome?: (r: PhoneHomeReport) => void;
}

/** What an instance's phone_home module posted: its form fields (instance_id, hostname, fqdn, pub_key_*). */
export interface PhoneHomeReport {
  /** The path posted to: /phone-home or /phone-home/<what the user data put there, e.g. the instance id>. */
  path: string;
  /** The instance's address, as this server saw it. */
  address: string;
  fields: Record<string, string>;
}

/** The path every kind answers phone-home reports on, and the paths under it. */
export const PHONE_HOME_PATH = '/phone-home';

export interface RequestRecord {
  method: string;
  path: string;
  /** The client's address. */
  remote: string;
  headers: Record<string, string | string[] | undefined>;
  status: number;
  /** The address the client connected to (which machine it is, with perAddress). */
  local: string;
  /** The request body, where the kind keeps it (a health report, a phone-home post). */
  body?: string;
}

export interface RunningMetadataServer {
  /** 'http://127.0.0.1:PORT' without a trailing slash; on a unix socket, the URL the kind's clients address it by. */
  url: string;
  /** The unix socket listened on, when one was asked for. */
  socketPath?: string;
  port: number;
  /** Every request answered or dropped, in order. */
  requests: RequestRecord[];
  /** The kinds with a password server: what it saw (requests with a DomU_Request header). */
  passwordServer?: PasswordServerState;
  close(): Promise<void>;
}

/** Parses the CLI/knob form 'kind[,path=/x][,times=N][,value=N]', e.g. 'status,value=503,times=2'. */
export function parseMisbehaviour(text: string): Misbehaviour {
  const [kind, ...rest] = text.split(',');
  const kinds: Array<Misbehaviour['kind']> = [
    'delay',
    'status',
    'truncate',
    'oversize',
    'redirect-loop',
    'redirect-other-host',
    'drop',
    'wrong-type',
  ];
  if (!kinds.includes(kind as Misbehaviour['kind']))
    throw new Error(`unknown misbehaviour '${kind}'; one of ${kinds.join(', ')}`);
  const m: Misbehaviour = { kind: kind as Misbehaviour['kind'] };
  for (const part of rest) {
    const [k, v] = part.split('=');
    if (k === 'path' && v) m.path = v;
    else if ((k === 'times' || k === 'value') && v && /^\d+$/.test(v)) m[k] = Number(v);
    else throw new Error(`bad misbehaviour option '${part}' in '${text}'; use path=/p, times=N or value=N`);
  }
  return m;
}

export async function startMetadataServer(opts: MetadataServerOptions): Promise<RunningMetadataServer> {
  const service = httpServeKind(opts.kind);
  const requests: RequestRecord[] = [];
  const rules = (opts.misbehave ?? []).map((m) => ({ ...m, left: m.times ?? Number.POSITIVE_INFINITY }));
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const root = posix.resolve(opts.dir);
  const files = folderFiles(root);
  const answers =
    service.answers?.({
      ...(opts.imdsv2 ? { imdsv2: opts.imdsv2 } : {}),
      ...(opts.tokenUses !== undefined ? { tokenUses: opts.tokenUses } : {}),
    }) ?? {};
  const passwords = service.passwordServer ? passwordServerRules(root) : undefined;

  const localOf = (req: IncomingMessage) => (req.socket.localAddress ?? '').replace(/^::ffff:/, '');
  const record = (req: IncomingMessage, status: number) => {
    const r: RequestRecord = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      remote: (req.socket.remoteAddress ?? '').replace(/^::ffff:/, ''),
      headers: req.headers,
      status,
      local: localOf(req),
    };
    requests.push(r);
    opts.onRequest?.(r);
  };
  const rootFor = async (req: IncomingMessage): Promise<string> => {
    if (!opts.perAddress) return root;
    const own = posix.join(root, localOf(req));
    return (await exists(own)) ? own : root;
  };

  const send = (
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    body: string | Uint8Array,
    headers: Record<string, string> = {},
  ) => {
    record(req, status);
    const bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body);
    res.writeHead(status, { 'content-type': 'text/plain', 'content-length': String(bytes.length), ...headers });
    res.end(bytes);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://metadata');
    const path = url.pathname;
    for (const rule of rules) {
      if (rule.left <= 0 || (rule.path && !path.startsWith(rule.path))) continue;
      rule.left--;
      switch (rule.kind) {
        case 'delay':
          await new Promise<void>((r) => {
            const t = setTimeout(() => {
              timers.delete(t);
              r();
            }, rule.value ?? 60_000);
            timers.add(t);
          });
          if (res.destroyed || req.socket.destroyed) return;
          break;
        case 'status':
          return send(req, res, rule.value ?? 503, `deliberate ${rule.value ?? 503}\n`);
        case 'truncate': {
          record(req, 200);
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
          res.write('only part of the body');
          setTimeout(() => res.socket?.destroy(), 20);
          return;
        }
        case 'oversize': {
          record(req, 200);
          const total = rule.value ?? 16 * 1024 * 1024;
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          const chunk = Buffer.alloc(64 * 1024, 0x61);
          let sent = 0;
          const pump = () => {
            while (sent < total && !res.destroyed) {
              sent += chunk.length;
              if (!res.write(chunk)) return void res.once('drain', pump);
            }
            res.end();
          };
          pump();
          return;
        }
        case 'redirect-loop':
          return send(req, res, 302, '', { location: path.endsWith('/') ? `${path}?loop` : `${path}/` });
        case 'redirect-other-host':
          return send(req, res, 302, '', { location: `http://metadata.other.invalid${path}` });
        case 'drop':
          record(req, 0);
          req.socket.destroy();
          return;
        case 'wrong-type':
          // A captive portal or proxy error page where metadata should be: 200, but HTML.
          return send(req, res, 200, '<html><body><h1>Welcome</h1>Please log in.</body></html>\n', {
            'content-type': 'text/html',
          });
      }
    }
    if (req.method === 'POST' && (path === PHONE_HOME_PATH || path.startsWith(`${PHONE_HOME_PATH}/`))) {
      const body = await readRequestBody(req, 1024 * 1024);
      const fields = phoneHomeFields(body, String(req.headers['content-type'] ?? ''));
      if (!fields)
        return send(req, res, 400, 'the report must be a form (application/x-www-form-urlencoded) or a JSON object\n');
      send(req, res, 200, 'ok\n');
      (requests.at(-1) as RequestRecord).body = body;
      opts.onPhoneHome?.({ path, address: (requests.at(-1) as RequestRecord).remote, fields });
      return;
    }
    if (passwords && req.headers.domu_request !== undefined) {
      const a = await passwords.answer(req);
      return send(req, res, a.status, a.body);
    }
    const request = mockRequest(req, url);
    const early = await answers.anyMethod?.(request);
    if (early) return reply(req, res, early);
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(req, res, 405, 'method not allowed\n');
    const own = await answers.readOnly?.(request);
    if (own) return reply(req, res, own);
    const served = await resolveTree(await rootFor(req), path, service);
    if (!served) return send(req, res, 404, 'not found\n');
    return send(req, res, 200, served);
  };

  /** REQ as the cloud's mock sees it: its body read on demand, once. */
  const mockRequest = (req: IncomingMessage, url: URL): MockRequest => {
    let body: Promise<string> | undefined;
    return {
      method: req.method ?? 'GET',
      url,
      path: url.pathname,
      headers: req.headers,
      remotePort: req.socket.remotePort,
      self: `http://${req.headers.host ?? 'localhost'}`,
      body: (limit, tooLong) => (body ??= readRequestBody(req, limit, tooLong)),
      files,
      run: runInScratch,
    };
  };

  const reply = (req: IncomingMessage, res: ServerResponse, answer: MockAnswer): void => {
    if (answer.drop) {
      record(req, 0);
      req.socket.destroy();
      return;
    }
    send(req, res, answer.status, answer.body, answer.headers);
    if (answer.keptBody !== undefined) (requests.at(-1) as RequestRecord).body = answer.keptBody;
  };

  // node:http is loaded here, on use: every other kiln start would pay for it.
  const { createServer } = await import('node:http');
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(req, res, 500, `server error: ${describeError(err)}\n`);
      else res.destroy();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // A socket left by an earlier run would make listen fail; anything else at that path is left for listen to refuse.
  if (opts.socketPath !== undefined && (await fsp.lstat(opts.socketPath).catch(() => undefined))?.isSocket())
    await fsp.rm(opts.socketPath);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if (opts.socketPath !== undefined) server.listen(opts.socketPath, () => resolve());
    else server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const closeAll = () =>
    new Promise<void>((resolve) => {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  if (opts.socketPath !== undefined)
    return {
      url: service.socketUrl ?? 'http://localhost',
      port: 0,
      socketPath: opts.socketPath,
      requests,
      close: closeAll,
    };
  const addr = server.address() as AddressInfo;
  const hostPart = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${hostPart}:${addr.port}`,
    port: addr.port,
    requests,
    ...(passwords ? { passwordServer: passwords.state } : {}),
    close: closeAll,
  };
}

/**
 * A phone-home body's fields: cc_phone_home posts a form; a JSON object of strings is taken too. Undefined: neither.
 */
function phoneHomeFields(body: string, contentType: string): Record<string, string> | undefined {
  if (/json/i.test(contentType) || body.trimStart().startsWith('{')) {
    try {
      const doc: unknown = JSON.parse(body);
      if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return undefined;
      return Object.fromEntries(
        Object.entries(doc).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
      );
    } catch {
      // A body that is not a JSON mapping has no headers to add.
      return undefined;
    }
  }
  return Object.fromEntries(new URLSearchParams(body));
}

/**
 * The bytes for PATH: a file's content, or a directory listing (one name a line; subfolders end in '/', but in the
 * kind's bare-listed top folder). With the kind's key-named folders, a folder named '0=name' answers as '0/'.
 */
async function resolveTree(root: string, path: string, service: HttpMockService): Promise<Uint8Array | undefined> {
  const parts = decodeURIComponent(path)
    .split('/')
    .filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) return undefined;
  let host = root;
  for (const part of parts) {
    let next = posix.join(host, part);
    if (!(await exists(next)) && service.keyNamedFolders) {
      const alias = (await listSafe(host)).find((n) => n.startsWith(`${part}=`));
      if (alias) next = posix.join(host, alias);
    }
    host = next;
  }
  let st: Awaited<ReturnType<typeof fsp.stat>>;
  try {
    st = await fsp.stat(host);
  } catch {
    // Nothing at that path in the mock folder: the request gets a 404.
    return undefined;
  }
  if (st.isFile()) return fsp.readFile(host);
  const names = await listSafe(host);
  const lines: string[] = [];
  for (const name of names) {
    const isDir = (await fsp.stat(posix.join(host, name))).isDirectory();
    const bare = service.bareListing !== undefined && parts.length === 1 && parts[0] === service.bareListing;
    lines.push(isDir && !bare && !name.includes('=') ? `${name}/` : name);
  }
  return Buffer.from(lines.join('\n'));
}

async function exists(p: string): Promise<boolean> {
  try {
    await fsp.stat(p);
    return true;
  } catch {
    // stat's failure is the answer: the path does not exist (or cannot be seen).
    return false;
  }
}

async function listSafe(dir: string): Promise<string[]> {
  try {
    return (await fsp.readdir(dir)).sort();
  } catch {
    // An unreadable or missing folder lists as empty.
    return [];
  }
}

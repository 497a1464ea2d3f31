// What a cloud registers for `kiln devel serve-metadata` to stand in for its metadata service: the --kind word, how the
// guest reaches it, and the answers that follow the cloud's own rules. The server (src/metadata-server/) gives the
// transport, the served folder, misbehaviour, the access log, phone-home and the password server; nothing here imports
// it.

/** The folder the mock serves, read through the server: paths are relative to it ('hetzner/v1/metadata'). */
export interface MockFiles {
  /** The bytes of the regular file at PATH, or undefined when there is none (missing, a folder, unreadable). */
  read(path: string): Promise<Uint8Array | undefined>;
  /** The entries of the folder at PATH ('' or '.': the top), sorted by name; undefined when it is not a folder. */
  list(path: string): Promise<Array<{ name: string; folder: boolean }> | undefined>;
}

/** A host command's result (the mock's own machine: the Azure certificates are packed by its openssl). */
export interface MockCommandResult {
  status: number | null;
  stdout: Uint8Array;
  stderr: string;
}

/** One HTTP request as a cloud's mock answers it. */
export interface MockRequest {
  method: string;
  url: URL;
  /** url.pathname. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The client's source port (Scaleway serves user data to privileged ports only). */
  remotePort: number | undefined;
  /** This server as the client addressed it: 'http://HOST:PORT' from the Host header. */
  self: string;
  /**
   * The request body as text, read once: at most LIMIT bytes are kept, or, with TOO_LONG, a longer one fails the read
   * with that message.
   */
  body(limit: number, tooLong?: string): Promise<string>;
  /** The served folder. */
  files: MockFiles;
  /**
   * Runs ARGV on the mock's host in a scratch folder holding FILES (by name; ARGV names them relative to it), INPUT on
   * stdin.
   */
  run(argv: string[], opts?: { input?: Uint8Array; files?: Record<string, string | Uint8Array> }): MockCommandResult;
}

export interface MockAnswer {
  status: number;
  body: string | Uint8Array;
  headers?: Record<string, string>;
  /** Close the connection without an answer. */
  drop?: true;
  /** The request body, kept with the request in the server's record (a health report, a phone-home post). */
  keptBody?: string;
}

/** What one server was started with, beyond the folder: EC2's IMDSv2 rules. */
export interface MockOptions {
  /**
   * 'required' answers 401 without a token; 'optional' (default) accepts IMDSv1; 'disabled' answers 403 to PUT token.
   */
  imdsv2?: 'required' | 'optional' | 'disabled';
  /** Tokens stop being valid after this many uses. */
  tokenUses?: number;
}

/**
 * One server's answers (made fresh per server, so state such as tokens or nonces is its own). Each gives an answer,
 * or undefined to let the request go on: `anyMethod` before the server's GET-and-HEAD-only rule, `readOnly` after
 * it, then the folder itself.
 */
export interface MockAnswers {
  anyMethod?(req: MockRequest): Promise<MockAnswer | undefined>;
  readOnly?(req: MockRequest): Promise<MockAnswer | undefined>;
}

/** A connection to a line-protocol host (a serial port's far side, a zone socket), as the server hands it over. */
export interface MockStream {
  onData(listener: (chunk: Uint8Array) => void): void;
  write(text: string): void;
  destroy(): void;
  readonly destroyed: boolean;
}

/** A serial host's answers: SERVE speaks on each connection; `requests` is what the guest asked for, in order. */
export interface MockSerialHost {
  serve(stream: MockStream): void;
  readonly requests: string[];
}

interface MockServiceBase {
  /** The --kind word. */
  readonly kind: string;
  /** What the command's summary says of it beyond its transport. */
  readonly note?: string;
}

/** A cloud whose metadata service is HTTP, on an address or (LXD's /dev/lxd/sock) on a unix socket. */
export interface HttpMockService extends MockServiceBase {
  readonly transport: 'http' | 'http-socket';
  /** Where the guest looks for the socket, for --socket's help (a root's path). */
  readonly socketHint?: string;
  /** On a unix socket: the URL its clients address it by (the server's `url`). */
  readonly socketUrl?: string;
  /** The server takes --imdsv2 and --token-uses (IMDSv2's token rules). */
  readonly imdsv2?: true;
  /**
   * The cloud also has a password server on a port of its own (--password-port; 8080 on CloudStack's virtual router).
   */
  readonly passwordServer?: true;
  /** The folder's EC2-style key folders named '0=name' answer as '0/' (and are listed so). */
  readonly keyNamedFolders?: true;
  /** A top folder whose listing names its subfolders bare (without the trailing '/'). */
  readonly bareListing?: string;
  /** The answers by the cloud's own rules; none: the folder is served as it is. */
  answers?(opts: MockOptions): MockAnswers;
}

/**
 * A cloud whose metadata comes over a line protocol, served on a unix socket standing in for a serial port or zone
 * socket.
 */
export interface SerialMockService extends MockServiceBase {
  readonly transport: 'serial';
  readonly socketHint?: string;
  /** The host for the folder FILES. */
  host(files: MockFiles): MockSerialHost;
}

export type MockService = HttpMockService | SerialMockService;

/** The text of the file at PATH of FILES, or undefined. */
export async function readMockText(files: MockFiles, path: string): Promise<string | undefined> {
  const bytes = await files.read(path);
  return bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8');
}

// `devel serve-metadata`: a local metadata service for any cloud kiln reads (HTTP, unix sockets for LXD, SmartOS and
// CloudSigma, password servers) from a folder, for testing images in CI.
import {
  parseMisbehaviour,
  PHONE_HOME_PATH,
  startMetadataServer,
  type Misbehaviour,
  type PhoneHomeReport,
  type RequestRecord,
} from '../metadata-server/metadata-server';
import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { startSerialHost } from '../metadata-server/serial-hosts';
import { describedKinds, kindsWhere, SERVE_KINDS, serveKind, wordList } from '../metadata-server/serve-kinds';
import { describeError, UsageError } from '../util/errors';
import type { Command } from './command';

/** The kinds that answer on a unix socket (--socket), and those with a password server (--password-port). */
const SOCKET_KINDS = kindsWhere((k) => k.transport !== 'http');
const PASSWORD_KINDS = kindsWhere((k) => k.transport !== 'serial' && k.passwordServer === true);
/** The kinds with IMDSv2's token rules (--imdsv2, --token-uses). */
const TOKEN_KINDS = kindsWhere((k) => k.transport !== 'serial' && k.imdsv2 === true);

/** --kind's help: every kind, wrapped at 96 columns, then where the folder layouts are described. */
function kindHelp(): string[] {
  const lines: string[] = [];
  let line = '--kind K         ';
  for (const word of wordList(SERVE_KINDS.map((k) => k.kind)).split(' ')) {
    if (line.length + 1 + word.length > 96) {
      lines.push(line);
      line = ' '.repeat(17);
    }
    line += ` ${word}`;
  }
  return [...lines, `${line} (the folder layouts are in docs/datasources.md)`];
}

export const develServeMetadataCommand: Command = {
  words: ['devel', 'serve-metadata'],
  summary: `serve a metadata tree (${describedKinds()}) from a folder over HTTP, optionally misbehaving`,
  usage: `devel serve-metadata --kind ${SERVE_KINDS.map((k) => k.kind).join('|')} --dir DIR [--listen 127.0.0.1:PORT | --socket PATH] [--imdsv2 required|optional|disabled] [--password-port PORT] [--misbehave RULE]… [--per-address] [--request-log FILE] [--quiet] [--exit-after-phone-home] [--exit-after SECONDS]`,
  faces: ['kiln', 'cloud-init'],
  positional: [0, 0],
  flags: {
    string: [
      'kind',
      'dir',
      'listen',
      'socket',
      'imdsv2',
      'misbehave',
      'exit-after',
      'token-uses',
      'request-log',
      'password-port',
    ],
    boolean: ['per-address', 'quiet', 'exit-after-phone-home'],
    repeatable: ['misbehave'],
    help: [
      ...kindHelp(),
      '--dir DIR         the folder served as the tree root',
      '--listen H:P      address to listen on (default 127.0.0.1:0, a free port; the URL is printed)',
      `--socket PATH     ${SOCKET_KINDS.map((k) => k.kind).join(', ')}: the unix socket to listen on (${SOCKET_KINDS.flatMap((k) => k.socketHint ?? []).join(', ')};`,
      '                  for a serial port, join a pty to it: socat PTY,link=ROOT/dev/ttyS1,raw,echo=0 UNIX-CONNECT:PATH)',
      `--imdsv2 MODE     ${TOKEN_KINDS.map((k) => k.kind).join(', ')}: required (401 without a token), optional (default) or disabled (403 to PUT token)`,
      `--token-uses N    ${TOKEN_KINDS.map((k) => k.kind).join(', ')}: a token is refused after N uses (tests token refresh)`,
      `--password-port P ${PASSWORD_KINDS.map((k) => k.kind).join(', ')}: also serve the password server (DIR/password) on PORT of the same host, as 8080`,
      '--misbehave RULE  KIND[,path=/prefix][,times=N][,value=N]; KIND is delay, status, truncate, oversize,',
      '                  redirect-loop, redirect-other-host, drop or wrong-type. E.g. status,value=503,times=2',
      '--per-address     serve DIR/ADDRESS/ to clients that connected to ADDRESS, where that folder exists (one',
      '                  server for many machines, e.g. 127.0.0.2, 127.0.0.3 … when listening on 0.0.0.0 in a namespace)',
      "--request-log F   append one JSON line per request (method, path, status, address, time; a password server's",
      '                  DomU_Request too) to F',
      '--quiet           no access log (by default one line per request on stdout: client, method, path, status)',
      `--exit-after-phone-home  stop when an instance posts its report to ${PHONE_HOME_PATH}[/…] (cc_phone_home's url);`,
      '                  exit 0 then, 1 when --exit-after comes first: a pipeline boots an image and waits for it',
      '--exit-after S    stop after S seconds (default: run until interrupted)',
    ],
  },
  async run(ctx, args) {
    const kind = args.flags.kind as string | undefined;
    const served = kind === undefined ? undefined : serveKind(kind);
    if (!kind || !served)
      throw new UsageError(`--kind must be one of ${SERVE_KINDS.map((k) => k.kind).join(', ')}, not '${kind ?? ''}'`);
    const socket = args.flags.socket as string | undefined;
    const serial = served.transport === 'serial';
    const onSocket = served.transport !== 'http';
    if (onSocket !== (socket !== undefined))
      throw new UsageError(
        onSocket
          ? `--kind ${kind} needs --socket PATH: it answers on a unix socket`
          : `--socket is for --kind ${wordList(SOCKET_KINDS.map((k) => k.kind))} only`,
      );
    if (serial && args.flags['exit-after-phone-home'])
      throw new UsageError(`--exit-after-phone-home needs an HTTP kind: ${kind} answers on a serial line`);
    const dir = args.flags.dir as string | undefined;
    if (!dir) throw new UsageError('--dir DIR is required: the folder holding the metadata tree');
    // A missing tree would start a server that answers 404 to everything, forever.
    const tree = statSync(dir, { throwIfNoEntry: false });
    if (!tree?.isDirectory()) throw new UsageError(`--dir ${dir}: ${tree ? 'not a folder' : 'no such folder'}`);
    const listen = (args.flags.listen as string | undefined) ?? '127.0.0.1:0';
    const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(listen);
    if (!m || Number(m[2]) > 65535)
      throw new UsageError(
        `--listen must be HOST:PORT with a port from 0 to 65535 (e.g. 127.0.0.1:8080 or [::1]:8080), not '${listen}'`,
      );
    const imdsv2 = args.flags.imdsv2 as string | undefined;
    if (imdsv2 !== undefined && !['required', 'optional', 'disabled'].includes(imdsv2))
      throw new UsageError(`--imdsv2 must be required, optional or disabled, not '${imdsv2}'`);
    const rules: Misbehaviour[] = [];
    const given = args.flags.misbehave;
    for (const text of Array.isArray(given) ? given : typeof given === 'string' ? [given] : []) {
      try {
        rules.push(parseMisbehaviour(text));
      } catch (err) {
        throw new UsageError(`--misbehave: ${describeError(err)}`);
      }
    }
    const exitAfter = args.flags['exit-after'] !== undefined ? Number(args.flags['exit-after']) : undefined;
    if (exitAfter !== undefined && !(exitAfter > 0))
      throw new UsageError('--exit-after takes a number of seconds above 0');
    const tokenUses = args.flags['token-uses'] !== undefined ? Number(args.flags['token-uses']) : undefined;
    const passwordPort = args.flags['password-port'] !== undefined ? Number(args.flags['password-port']) : undefined;
    if (
      passwordPort !== undefined &&
      (served.transport === 'serial' ||
        !served.passwordServer ||
        !Number.isInteger(passwordPort) ||
        passwordPort < 1 ||
        passwordPort > 65535)
    )
      throw new UsageError(
        `--password-port takes a port number, and only with --kind ${wordList(PASSWORD_KINDS.map((k) => k.kind))}`,
      );
    const requestLog = args.flags['request-log'] as string | undefined;
    const logFd = requestLog && !ctx.dryRun ? openSync(requestLog, 'a', 0o644) : undefined;
    // A password server request also logs its DomU_Request, so a test can see the acknowledgement arrive.
    const logRequest =
      logFd === undefined
        ? undefined
        : (r: RequestRecord) =>
            void writeSync(
              logFd,
              `${JSON.stringify({ method: r.method, path: r.path, status: r.status, address: r.local, ...(r.headers.domu_request !== undefined ? { domu_request: String(r.headers.domu_request) } : {}), at: Date.now() })}\n`,
            );
    // The access log and the phone-home reports go to stdout; every report is shown, the first ends the wait when
    // asked.
    const accessLog = args.flags.quiet
      ? undefined
      : (r: RequestRecord) => ctx.io.out(`${r.remote || '-'} ${r.method} ${r.path} ${r.status || 'dropped'}\n`);
    const onRequest =
      logRequest || accessLog
        ? (r: RequestRecord) => {
            logRequest?.(r);
            accessLog?.(r);
          }
        : undefined;
    let phonedHome: (() => void) | undefined;
    let reports = 0;
    const onPhoneHome = (r: PhoneHomeReport) => {
      reports++;
      ctx.io.out(`phone-home from ${r.address} (${r.path}): ${JSON.stringify(r.fields)}\n`);
      if (args.flags['exit-after-phone-home']) phonedHome?.();
    };
    const server = serial
      ? await startSerialHost(kind, dir, socket as string)
      : await startMetadataServer({
          kind,
          dir,
          host: (m[1] as string).replace(/^\[|\]$/g, ''),
          port: Number(m[2]),
          ...(socket !== undefined ? { socketPath: socket } : {}),
          misbehave: rules,
          ...(imdsv2 ? { imdsv2: imdsv2 as 'required' | 'optional' | 'disabled' } : {}),
          ...(tokenUses !== undefined ? { tokenUses } : {}),
          ...(args.flags['per-address'] ? { perAddress: true } : {}),
          ...(onRequest ? { onRequest } : {}),
          onPhoneHome,
        });
    // The password server is the same rules on a port of its own (8080 on CloudStack's virtual router and at Exoscale).
    const passwordServer =
      passwordPort !== undefined
        ? await startMetadataServer({
            kind,
            dir,
            host: (m[1] as string).replace(/^\[|\]$/g, ''),
            port: passwordPort,
            ...(onRequest ? { onRequest } : {}),
          })
        : undefined;
    if (passwordServer)
      ctx.io.out(`serving the ${kind} password server from ${dir}/password at ${passwordServer.url}\n`);
    ctx.io.out(
      `serving ${kind} metadata from ${dir} at ${server.url}${server.socketPath !== undefined ? ` on ${server.socketPath}` : ''}\n`,
    );
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        if (timer) clearTimeout(timer);
        resolve();
      };
      const timer = exitAfter !== undefined ? setTimeout(stop, exitAfter * 1000) : undefined;
      phonedHome = stop;
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      // A report that came while the password server was starting.
      if (args.flags['exit-after-phone-home'] && reports > 0) stop();
    });
    await server.close();
    await passwordServer?.close();
    if (logFd !== undefined) closeSync(logFd);
    ctx.log.debug(`served ${server.requests.length} requests`);
    if (args.flags['exit-after-phone-home'] && reports === 0) {
      ctx.io.err(
        `no instance posted to ${PHONE_HOME_PATH} before the server stopped${exitAfter !== undefined ? ` (--exit-after ${exitAfter})` : ''}\n`,
      );
      return 1;
    }
    return 0;
  },
};

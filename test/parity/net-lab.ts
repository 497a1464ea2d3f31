// The network a parity case's machine sees: the shared two-namespace lab (test/helpers/netns-lab.ts) with the case's
// MAC, extra NICs, metadata addresses and DHCP options, and in the cloud's namespace the mock metadata service (the
// built kiln's `devel serve-metadata`).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_DHCP_OPTIONS, openLab } from '../helpers/netns-lab';
import type { NetCase } from './net-cases';

export interface NetLab {
  /** The machine's namespace: the stages run in it (eth0, down, with the case's MAC; lo up). */
  machine: string;
  /** What the metadata service printed and logged (for failure messages). */
  serverOutput(): string;
  /** The service's request log so far (`--request-log`): one record a request, the password server's too. */
  requests(): Array<Record<string, unknown>>;
  close(): void;
}

/** Builds the lab (files in DIR), starts the case's metadata service; resolves once the service listens. */
export async function openNetLab(c: NetCase, kiln: string, dir: string): Promise<NetLab> {
  mkdirSync(dir, { recursive: true });
  const lab = openLab(dir, {
    mac: c.mac,
    dhcp: [...DEFAULT_DHCP_OPTIONS, ...c.dhcpOptions],
    serverAddresses: c.serve.addresses,
    extraNics: c.extraNics.map((n) => ({ name: n.name, mac: n.mac, serverAddress: n.cloudAddress })),
  });
  let output = '';
  const requestLog = join(dir, 'requests.log');
  const netLab = {
    machine: lab.client,
    serverOutput: () => output,
    requests: () => readRequestLog(requestLog),
    close: lab.close,
  };
  if (c.serve.kind === 'none') return netLab;
  const server = spawn(
    'ip',
    [
      'netns',
      'exec',
      lab.server,
      kiln,
      'devel',
      'serve-metadata',
      '--kind',
      c.serve.kind,
      '--dir',
      c.tree,
      '--listen',
      c.serve.listen,
      '--request-log',
      requestLog,
      ...c.serve.args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const close = () => {
    if (server.exitCode === null) server.kill('SIGKILL');
    lab.close();
  };
  server.stdout?.on('data', (b: Buffer) => void (output += b.toString()));
  server.stderr?.on('data', (b: Buffer) => void (output += b.toString()));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the ${c.serve.kind} metadata service did not start in 30 s: ${output}`)),
        30_000,
      );
      server.stdout?.on('data', () => {
        if (output.includes(c.serve.listen.replace(/:80$/, ''))) {
          clearTimeout(timer);
          resolve();
        }
      });
      server.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the ${c.serve.kind} metadata service exited ${code}: ${output}`));
      });
    });
  } catch (e) {
    close();
    throw e;
  }
  return { ...netLab, close };
}

/** The lines of a `--request-log` file, parsed (none yet: empty). */
function readRequestLog(path: string): Array<Record<string, unknown>> {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

// Many first boots at once against ONE mock metadata service (issue 23's fleet): a private network namespace
// whose loopback holds the service on 0.0.0.0:80; boot N talks to 127.0.0.(N+2), and the service answers each
// address from its own tree (`devel serve-metadata --per-address`), so every boot gets its own instance id.
// Each boot is `kiln --root SANDBOX init` (the network stage, where EC2 and OpenStack are read). Used by
// test/reliability/fleet.test.ts and `npm run soak -- fleet`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type FleetKind = 'ec2' | 'openstack';

export interface FleetOptions {
  binary: string;
  work: string;
  boots: number;
  kind: FleetKind;
  /** `--misbehave` rules for the one service (a 429/503 storm, slow answers …). */
  misbehave: string[];
  /** Each boot must end within this many seconds. */
  budgetS: number;
}

export interface BootOutcome {
  index: number;
  address: string;
  expectedId: string;
  /** v1.instance_id from the boot's instance-data.json, undefined when it has none. */
  instanceId?: string;
  code: number | null;
  ms: number;
  requests: number;
  /** Requests answered 429 or 5xx (the storm this boot rode out). */
  refused: number;
}

export interface FleetResult {
  outcomes: BootOutcome[];
  wallMs: number;
  totalRequests: number;
}

const addressOf = (i: number) => `127.0.0.${i + 2}`;
const idOf = (kind: FleetKind, i: number) =>
  kind === 'ec2'
    ? `i-fleet${String(i).padStart(11, '0')}`
    : `0f1ee7${String(i).padStart(2, '0')}-0000-4000-8000-000000000000`;

function write(path: string, content: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
}

/** The tree one machine sees: an instance id, a host name, a key and a little user data. */
function writeMachineTree(dir: string, kind: FleetKind, i: number): void {
  const id = idOf(kind, i);
  const userData = `#cloud-config\nfinal_message: fleet machine ${i}\n`;
  if (kind === 'ec2') {
    const md = join(dir, '2021-03-23/meta-data');
    write(join(md, 'instance-id'), id);
    write(join(md, 'local-hostname'), `fleet-${i}.internal`);
    write(join(md, 'hostname'), `fleet-${i}.internal`);
    write(join(md, 'placement/availability-zone'), 'eu-fleet-1a');
    write(join(md, 'public-keys/0=fleet/openssh-key'), `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFleet${i} fleet`);
    write(join(dir, '2021-03-23/user-data'), userData);
    write(
      join(dir, '2021-03-23/dynamic/instance-identity/document'),
      JSON.stringify({ instanceId: id, region: 'eu-fleet-1' }),
    );
  } else {
    const os = join(dir, 'openstack/latest');
    write(
      join(os, 'meta_data.json'),
      JSON.stringify({
        uuid: id,
        hostname: `fleet-${i}`,
        name: `fleet-${i}`,
        availability_zone: 'nova',
        public_keys: { fleet: `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFleet${i} fleet` },
      }),
    );
    write(join(os, 'user_data'), userData);
    write(join(dir, 'openstack/latest/network_data.json'), JSON.stringify({ links: [], networks: [], services: [] }));
  }
}

/**
 * The sandbox of one boot: the cloud's DMI (AWS's, so Ec2 uses IMDSv2 tokens as on AWS), cloud.cfg.d naming the
 * source and its endpoint, no modules (only the crawl is measured).
 */
function writeSandbox(root: string, kind: FleetKind, i: number): void {
  const name = kind === 'ec2' ? 'Ec2' : 'OpenStack';
  const dmi =
    kind === 'ec2'
      ? { sys_vendor: 'Amazon EC2', product_uuid: `ec2e1916-9099-7caf-fd21-0123456789${String(i).padStart(2, '0')}` }
      : { product_name: 'OpenStack Nova', sys_vendor: 'OpenStack Foundation' };
  for (const [field, value] of Object.entries(dmi)) write(join(root, 'sys/class/dmi/id', field), `${value}\n`);
  write(
    join(root, 'etc/cloud/cloud.cfg.d/90-fleet.cfg'),
    [
      `datasource_list: [${name}, None]`,
      'datasource:',
      `  ${name}:`,
      `    metadata_urls: ['http://${addressOf(i)}']`,
      '    timeout: 5',
      '    max_wait: 120',
      '    retries: 10',
      'cloud_init_modules: []',
      '',
    ].join('\n'),
  );
}

export async function runFleet(o: FleetOptions): Promise<FleetResult> {
  const ns = `kiln-fleet-${process.pid}-${Date.now() % 100000}`;
  const tree = join(o.work, 'tree');
  const log = join(o.work, 'requests.jsonl');
  for (let i = 0; i < o.boots; i++) {
    writeMachineTree(join(tree, addressOf(i)), o.kind, i);
    writeSandbox(join(o.work, `root-${i}`), o.kind, i);
  }
  const add = spawnSync('ip', ['netns', 'add', ns], { encoding: 'utf8' });
  if (add.status !== 0) throw new Error(`ip netns add ${ns} failed: ${add.stderr}`);
  try {
    spawnSync('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    const server = spawn(
      'ip',
      [
        'netns',
        'exec',
        ns,
        o.binary,
        'devel',
        'serve-metadata',
        '--kind',
        o.kind,
        '--dir',
        tree,
        '--listen',
        '0.0.0.0:80',
        '--per-address',
        '--request-log',
        log,
        ...o.misbehave.flatMap((m) => ['--misbehave', m]),
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        let err = '';
        const timer = setTimeout(() => reject(new Error(`the metadata service did not start: ${err}`)), 30_000);
        server.stderr?.on('data', (d: Buffer) => void (err += d.toString()));
        server.stdout?.once('data', () => {
          clearTimeout(timer);
          resolve();
        });
        server.once('exit', (code) => reject(new Error(`the metadata service exited with ${code}: ${err}`)));
      });
      const started = Date.now();
      const outcomes = await Promise.all(
        Array.from({ length: o.boots }, (_, i) => {
          const root = join(o.work, `root-${i}`);
          return new Promise<BootOutcome>((resolve) => {
            const t0 = Date.now();
            const boot = spawn('ip', ['netns', 'exec', ns, o.binary, '--root', root, 'init'], { stdio: 'ignore' });
            const timer = setTimeout(() => boot.kill('SIGKILL'), o.budgetS * 1000 + 30_000);
            boot.once('exit', (code) => {
              clearTimeout(timer);
              const dataFile = join(root, 'run/cloud-init/instance-data.json');
              let instanceId: string | undefined;
              if (existsSync(dataFile))
                instanceId = (JSON.parse(readFileSync(dataFile, 'utf8')) as { v1?: { instance_id?: string } }).v1
                  ?.instance_id;
              resolve({
                index: i,
                address: addressOf(i),
                expectedId: idOf(o.kind, i),
                ...(instanceId ? { instanceId } : {}),
                code,
                ms: Date.now() - t0,
                requests: 0,
                refused: 0,
              });
            });
          });
        }),
      );
      const wallMs = Date.now() - started;
      const byAddress = new Map(outcomes.map((b) => [b.address, b]));
      let totalRequests = 0;
      for (const line of readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
        const r = JSON.parse(line) as { address: string; status: number };
        totalRequests++;
        const b = byAddress.get(r.address);
        if (!b) continue;
        b.requests++;
        if (r.status === 429 || r.status >= 500 || r.status === 0) b.refused++;
      }
      return { outcomes, wallMs, totalRequests };
    } finally {
      server.kill('SIGTERM');
      await new Promise((r) => (server.exitCode !== null ? r(undefined) : server.once('exit', r)));
    }
  } finally {
    spawnSync('ip', ['netns', 'del', ns]);
  }
}

/** One line per problem: a boot without its own instance id, over its budget, or with unbounded requests. */
export function fleetProblems(r: FleetResult, o: Pick<FleetOptions, 'budgetS'>, maxRequestsPerBoot: number): string[] {
  const problems: string[] = [];
  for (const b of r.outcomes) {
    if (b.instanceId !== b.expectedId)
      problems.push(
        `boot ${b.index} (${b.address}) got instance id ${b.instanceId ?? '(none)'} instead of ${b.expectedId} (exit ${b.code}, ${b.requests} requests)`,
      );
    if (b.ms > o.budgetS * 1000) problems.push(`boot ${b.index} took ${b.ms} ms, over its ${o.budgetS} s budget`);
    if (b.requests > maxRequestsPerBoot)
      problems.push(`boot ${b.index} made ${b.requests} requests (bound ${maxRequestsPerBoot})`);
  }
  return problems;
}

/** A one-line summary: boots configured, time, requests per boot (min/median/max), refused requests ridden out. */
export function fleetSummary(r: FleetResult): string {
  const req = r.outcomes.map((b) => b.requests).sort((a, b) => a - b);
  const ms = r.outcomes.map((b) => b.ms).sort((a, b) => a - b);
  const ok = r.outcomes.filter((b) => b.instanceId === b.expectedId).length;
  const refused = r.outcomes.reduce((n, b) => n + b.refused, 0);
  const mid = (a: number[]) => a[Math.floor(a.length / 2)];
  return `${ok}/${r.outcomes.length} configured with their own instance ids in ${r.wallMs} ms; per boot: ${mid(ms)} ms median, ${ms[ms.length - 1]} ms slowest; requests per boot ${req[0]}/${mid(req)}/${req[req.length - 1]} (min/median/max), ${r.totalRequests} in all, ${refused} refused (429/5xx/dropped) and retried`;
}

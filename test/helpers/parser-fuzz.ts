// Seeded mutation fuzzing of kiln's text and message parsers (issue 23): YAML, user data (MIME, gzip, jinja,
// cloud-config, #include lists), jinja alone, network config v1/v2, ENI, network_data.json, cloudbase-init.conf,
// Windows user data (EC2Launch v2 YAML and EC2 XML tags). Each input must end in bounded time with a result or
// one of kiln's own errors (a KilnError: a clear message) — any other exception is a crash. Hostile inputs
// (deep nesting, bombs, invalid UTF-8, huge documents) run once per target. Runs in a worker so that a hang is
// seen from outside and memory is capped; test/reliability/parser-fuzz.test.ts and `npm run soak -- fuzz`
// drive it.
import { gzipSync } from 'node:zlib';
import { parentPort, Worker } from 'node:worker_threads';
import { loadCloudbaseConf } from '../../src/config/cloudbase-init-conf';
import { readYaml } from '../../src/config/read-yaml';
import { convertEniText } from '../../src/net/convert-eni';
import { convertOpenStackNetworkData } from '../../src/net/convert-openstack';
import { parseNetworkDocument } from '../../src/net/parse-network-config';
import { renderJinja } from '../../src/userdata/jinja-render';
import { processUserData } from '../../src/userdata/process-user-data';
import { processWindowsUserData } from '../../src/userdata/windows-user-data';
import { KilnError } from '../../src/util/errors';
import { seededRandom } from './seeded-random';

export interface FuzzTarget {
  name: string;
  /** Valid inputs the mutations start from. */
  corpus: string[];
  /** Tokens the mutator splices in (the grammar's own punctuation and keywords). */
  tokens: string[];
  run(input: Buffer): Promise<unknown> | unknown;
}

const text = (b: Buffer) => b.toString('utf8');
const MB = 1024 * 1024;

export const FUZZ_TARGETS: FuzzTarget[] = [
  {
    name: 'yaml',
    corpus: [
      'a: 1\nb: [x, y, {z: 0644}]\nc: |\n  text\n',
      'users:\n  - name: a\n    groups: [x]\n  - default\n',
      '%YAML 1.1\n---\nk: &a {x: 1}\nl: *a\nm: !!str 12\n',
    ],
    tokens: [
      '&a ',
      '*a',
      '!!binary ',
      '!!python/object ',
      '{',
      '}',
      '[',
      ']',
      '- ',
      ': ',
      '\n  ',
      '"',
      "'",
      '|',
      '>',
      '---\n',
      '...\n',
      '<<: *a\n',
      '? ',
      '\t',
      '#',
    ],
    run: (b) => readYaml(text(b), 'fuzz.yaml'),
  },
  {
    name: 'user-data',
    corpus: [
      '#cloud-config\nruncmd: [ls]\nwrite_files: [{path: /x, content: y}]\n',
      'Content-Type: multipart/mixed; boundary="B"\nMIME-Version: 1.0\n\n--B\nContent-Type: text/cloud-config\n\nhostname: h\n--B\nContent-Type: text/x-shellscript\nContent-Transfer-Encoding: base64\n\nIyEvYmluL3NoCmVjaG8K\n--B--\n',
      '## template: jinja\n#cloud-config\nhostname: {{ v1.local_hostname | default("x") }}\n{% for i in [1,2] %}a{{ i }}: {{ i * 2 }}\n{% endfor %}',
      '#cloud-config-archive\n- {type: text/cloud-config, content: "a: 1"}\n- content: "#!/bin/sh\\necho"\n',
      '#cloud-config-jsonp\n[{"op": "add", "path": "/a", "value": 1}]\n',
      '#include\nfile:///nonexistent\n',
    ],
    tokens: [
      '\n--B\n',
      '--B--',
      'Content-Type: ',
      'multipart/mixed; boundary=B',
      'Content-Transfer-Encoding: base64\n',
      'quoted-printable',
      '=\n',
      '{{',
      '}}',
      '{%',
      '%}',
      '#cloud-config\n',
      '#!/bin/sh\n',
      '## template: jinja\n',
      'charset=utf-16',
      'gzip',
    ],
    run: (b) => processUserData({ userData: b }, { maxPartBytes: 4 * MB, maxTotalBytes: 8 * MB }),
  },
  {
    name: 'jinja',
    corpus: [
      '{{ a.b | default("x") | upper }} {% if a.c is defined %}{{ a.c[0] }}{% else %}no{% endif %}',
      '{% set x = [1, 2, 3] %}{% for i in x if i > 1 %}{{ loop.index }}:{{ i }}{% endfor %}',
      "{{ '%s-%d' | format('a', 3) }}{{ x ~ 'y' }}{# c #}",
    ],
    tokens: [
      '{{',
      '}}',
      '{%',
      '%}',
      '{#',
      '#}',
      '|',
      '.',
      '[',
      ']',
      '(',
      ')',
      'for ',
      'if ',
      'endfor',
      'endif',
      'set ',
      ' in ',
      ' is ',
      'loop',
      '~',
      '**',
      '//',
      '"',
      "'",
    ],
    run: (b) => renderJinja(text(b), { a: { b: 'q', c: [1] }, v1: { local_hostname: 'h' } }),
  },
  {
    name: 'network-v1-v2',
    corpus: [
      'version: 1\nconfig:\n  - {type: physical, name: eth0, mac_address: "52:54:00:12:34:56", subnets: [{type: static, address: 10.0.0.2/24, gateway: 10.0.0.1}]}\n  - {type: bond, name: bond0, bond_interfaces: [eth0], params: {bond-mode: active-backup}}\n  - {type: nameserver, address: [1.1.1.1]}\n',
      'version: 2\nethernets:\n  eth0:\n    match: {macaddress: "52:54:00:12:34:56"}\n    dhcp4: true\n    addresses: [10.0.0.2/24, "fd00::2/64"]\n    routes: [{to: default, via: 10.0.0.1}]\nvlans:\n  v10: {id: 10, link: eth0}\nbridges:\n  br0: {interfaces: [v10]}\n',
    ],
    tokens: [
      'version: 2\n',
      'version: 1\n',
      'ethernets:',
      'bonds:',
      'vlans:',
      'bridges:',
      'link: ',
      'interfaces: [',
      'dhcp6: true',
      '/64',
      '/33',
      '::',
      '255.255.255.0',
      'type: ',
      'subnets: [',
      'mtu: ',
      '- ',
      ': ',
    ],
    run: (b) => parseNetworkDocument(readYaml(text(b), 'network-config')),
  },
  {
    name: 'eni',
    corpus: [
      'auto lo\niface lo inet loopback\n\nauto eth0\niface eth0 inet static\n    address 10.0.0.2/24\n    gateway 10.0.0.1\n    dns-nameservers 1.1.1.1\n    hwaddress ether 52:54:00:12:34:56\niface eth0 inet6 dhcp\n',
    ],
    tokens: [
      'iface ',
      ' inet ',
      ' inet6 ',
      'static',
      'dhcp',
      'manual',
      'auto ',
      'address ',
      'netmask ',
      'gateway ',
      'bond-slaves ',
      'bridge_ports ',
      'vlan-raw-device ',
      'source ',
      '\n    ',
      '/',
    ],
    run: (b) => convertEniText(text(b)),
  },
  {
    name: 'network_data.json',
    corpus: [
      JSON.stringify({
        links: [
          { id: 'tap1', type: 'phy', ethernet_mac_address: '52:54:00:12:34:56', mtu: 1500 },
          {
            id: 'bond0',
            type: 'bond',
            bond_links: ['tap1'],
            bond_mode: '802.3ad',
            ethernet_mac_address: '52:54:00:12:34:57',
          },
          { id: 'vlan0', type: 'vlan', vlan_link: 'bond0', vlan_id: 42, vlan_mac_address: '52:54:00:12:34:58' },
        ],
        networks: [
          {
            id: 'n1',
            link: 'tap1',
            type: 'ipv4',
            ip_address: '10.0.0.2',
            netmask: '255.255.255.0',
            routes: [{ network: '0.0.0.0', netmask: '0.0.0.0', gateway: '10.0.0.1' }],
          },
          { id: 'n2', link: 'vlan0', type: 'ipv6_dhcpv6-stateful' },
        ],
        services: [{ type: 'dns', address: '1.1.1.1' }],
      }),
    ],
    tokens: [
      '{',
      '}',
      '[',
      ']',
      ',',
      ':',
      '"',
      'null',
      'true',
      '1e999',
      '-1',
      '"type"',
      '"phy"',
      '"bond"',
      '"vlan"',
      '"ipv4"',
      '"ipv6"',
      '"link"',
      '"routes"',
    ],
    run: (b) => {
      let doc: unknown;
      try {
        doc = JSON.parse(text(b));
      } catch {
        return undefined; // not JSON: the readers reject it before conversion, with the file named
      }
      return convertOpenStackNetworkData(doc, new Map([['52:54:00:12:34:56', 'eth0']]));
    },
  },
  {
    name: 'cloudbase-init.conf',
    corpus: [
      '[DEFAULT]\nusername=Admin\ngroups=Administrators\nmetadata_services=cloudbaseinit.metadata.services.httpservice.HttpService,\n    cloudbaseinit.metadata.services.ec2service.EC2Service\nplugins = a.b.C\nverbose=true\n[openstack]\nmetadata_base_url = http://169.254.169.254/\n',
    ],
    tokens: ['[', ']', '=', ':', '\n    ', '#', ';', '%(', ')s', 'DEFAULT', 'true', 'false', ',', '\\'],
    run: (b) => loadCloudbaseConf([{ path: 'C:\\\\fuzz\\\\cloudbase-init.conf', text: text(b) }]),
  },
  {
    name: 'windows-user-data',
    corpus: [
      'version: 1.0\ntasks:\n  - task: executeScript\n    inputs:\n      - frequency: always\n        type: powershell\n        runAs: localSystem\n        content: |-\n          Write-Host hi\n',
      '<powershell>\nWrite-Host a\n</powershell>\n<script>echo b</script>\n<persist>true</persist>\n',
      '#ps1_sysnative\nWrite-Host x\n',
    ],
    tokens: [
      '<powershell>',
      '</powershell>',
      '<script>',
      '</script>',
      '<persist>',
      '</persist>',
      'tasks:',
      '- task: ',
      'executeScript',
      'inputs:',
      'content: ',
      'frequency: ',
      'rem cmd\n',
      '#ps1\n',
      'Content-Type: multipart/mixed; boundary=B\n',
    ],
    run: (b) => processWindowsUserData(b, { maxBytes: 8 * MB }),
  },
];

const INTERESTING = [
  '0',
  '-1',
  '4294967296',
  '1e308',
  'NaN',
  '\u0000',
  '\uFFFF',
  '\u202E',
  '%',
  '\\',
  '\r\n',
  '\t',
  ' ',
];

/** One mutant of SEED INPUT: 1–8 byte flips, inserts, deletes, duplicated ranges, spliced tokens. */
export function mutate(input: Buffer, tokens: string[], r: () => number): Buffer {
  let out = Buffer.from(input);
  const n = 1 + Math.floor(r() * 8);
  const pick = <T>(a: T[]): T => a[Math.floor(r() * a.length)] as T;
  for (let i = 0; i < n; i++) {
    const at = Math.floor(r() * (out.length + 1));
    const k = r();
    if (k < 0.2 && out.length > 0) out[Math.min(at, out.length - 1)] = Math.floor(r() * 256);
    else if (k < 0.35)
      out = Buffer.concat([out.subarray(0, at), out.subarray(Math.min(out.length, at + 1 + Math.floor(r() * 16)))]);
    else if (k < 0.5) {
      const len = Math.floor(r() * 64);
      out = Buffer.concat([out.subarray(0, at), out.subarray(at, at + len), out.subarray(at)]);
    } else if (k < 0.85) out = Buffer.concat([out.subarray(0, at), Buffer.from(pick(tokens)), out.subarray(at)]);
    else out = Buffer.concat([out.subarray(0, at), Buffer.from(pick(INTERESTING)), out.subarray(at)]);
  }
  return out.length > 256 * 1024 ? out.subarray(0, 256 * 1024) : out;
}

/** Inputs every target gets once: nesting 1e5 deep, huge and bomb-like documents, invalid UTF-8. */
export function hostileInputs(target: FuzzTarget): Array<{ label: string; input: Buffer }> {
  const deep = (open: string, close: string, n = 100_000) => Buffer.from(open.repeat(n) + close.repeat(n));
  const list: Array<{ label: string; input: Buffer }> = [
    {
      label: 'invalid UTF-8',
      input: Buffer.concat([
        Buffer.from(target.corpus[0] as string),
        Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]),
      ]),
    },
    { label: '1e5-deep brackets', input: deep('[', ']') },
    { label: '1e5-deep braces', input: deep('{', '}') },
    {
      label: '1e5-deep block nesting',
      input: Buffer.from(Array.from({ length: 20_000 }, (_, i) => `${' '.repeat(i % 200)}k${i}:\n`).join('')),
    },
    { label: '16 MB of one line', input: Buffer.alloc(16 * MB, 0x61) },
    {
      label: 'YAML billion laughs',
      input: Buffer.from(
        [
          'a: &a ["x","x","x","x","x","x","x","x","x"]',
          ...Array.from(
            { length: 9 },
            (_, i) =>
              `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9)
                .fill(`*${String.fromCharCode(97 + i)}`)
                .join(',')}]`,
          ),
        ].join('\n'),
      ),
    },
  ];
  if (target.name === 'user-data' || target.name === 'windows-user-data') {
    list.push({ label: 'gzip bomb', input: gzipSync(Buffer.alloc(64 * MB, 0x41)) });
    list.push({
      label: 'MIME nested 10000 deep',
      input: Buffer.from(
        Array.from(
          { length: 10_000 },
          (_, i) => `Content-Type: multipart/mixed; boundary="b${i}"\nMIME-Version: 1.0\n\n--b${i}\n`,
        ).join(''),
      ),
    });
    list.push({
      label: '50 MB user data',
      input: Buffer.concat([Buffer.from('#cloud-config\nruncmd:\n'), Buffer.alloc(50 * MB, 0x23)]),
    });
  }
  if (target.name === 'jinja') {
    list.push({
      label: '2e4-deep parentheses',
      input: Buffer.from(`{{ ${'('.repeat(20_000)}1${')'.repeat(20_000)} }}`),
    });
    list.push({ label: '2e4-deep if blocks', input: deep('{% if 1 %}', '{% endif %}', 20_000) });
  }
  return list;
}

export type FuzzMessage =
  | { kind: 'start'; target: string; i: number; seed: number; label?: string }
  | { kind: 'crash'; target: string; i: number; seed: number; label?: string; error: string; input: string }
  | { kind: 'slow'; target: string; i: number; seed: number; label?: string; ms: number }
  | { kind: 'done'; target: string; inputs: number; rejected: number };

/** CPU budget for one input; more is a defect (an input that nearly hangs). Hostile inputs get more. */
const INPUT_BUDGET_MS = 2000;
const HOSTILE_BUDGET_MS = 20_000;

/** Worker side: ITERATIONS mutants of TARGET's corpus from SEED, then its hostile inputs; reports through POST. */
export async function fuzzTargetInWorker(
  targetName: string,
  iterations: number,
  seed: number,
  post: (m: FuzzMessage) => void,
): Promise<void> {
  const target = FUZZ_TARGETS.find((t) => t.name === targetName);
  if (!target) throw new Error(`no fuzz target ${targetName}`);
  let rejected = 0;
  const attempt = async (input: Buffer, i: number, s: number, budget: number, label?: string): Promise<boolean> => {
    post({ kind: 'start', target: target.name, i, seed: s, ...(label ? { label } : {}) });
    // CPU time, not wall time: a loaded machine must not turn a fast parse into a reported one.
    const t0 = process.cpuUsage();
    try {
      await target.run(input);
    } catch (err) {
      if (!(err instanceof KilnError)) {
        post({
          kind: 'crash',
          target: target.name,
          i,
          seed: s,
          ...(label ? { label } : {}),
          error: err instanceof Error ? `${err.name}: ${err.message}\n${err.stack ?? ''}` : String(err),
          input: input.subarray(0, 2000).toString('base64'),
        });
        return false;
      }
      rejected++;
    }
    const used = process.cpuUsage(t0);
    const ms = (used.user + used.system) / 1000;
    if (ms > budget) {
      post({ kind: 'slow', target: target.name, i, seed: s, ...(label ? { label } : {}), ms });
      return false;
    }
    return true;
  };
  for (const c of target.corpus) if (!(await attempt(Buffer.from(c), -1, 0, INPUT_BUDGET_MS, 'corpus'))) return;
  for (let i = 0; i < iterations; i++) {
    const s = (seed + i * 2654435761) >>> 0;
    const r = seededRandom(s, 0x9e3779b9);
    const base = Buffer.from(target.corpus[Math.floor(r() * target.corpus.length)] as string);
    if (!(await attempt(mutate(base, target.tokens, r), i, s, INPUT_BUDGET_MS))) return;
  }
  const hostile = hostileInputs(target);
  for (const [j, h] of hostile.entries()) if (!(await attempt(h.input, j, 0, HOSTILE_BUDGET_MS, h.label))) return;
  post({ kind: 'done', target: target.name, inputs: iterations + target.corpus.length + hostile.length, rejected });
}

/** Worker entry: run by the bundled file that imports this module when it is not the main thread. */
export function fuzzWorkerMain(data: { target: string; iterations: number; seed: number }): void {
  void fuzzTargetInWorker(data.target, data.iterations, data.seed, (m) => parentPort?.postMessage(m));
}

/**
 * Main side: runs TARGET in a worker started from FILE (the bundled test or soak, which calls fuzzWorkerMain
 * off the main thread) with memory capped at 1 GiB; a hang (no progress for HANG MS), a crash, an input over
 * budget or running out of memory comes back as the failing message, naming the target, seed and input.
 */
export function fuzzTarget(
  file: string,
  target: string,
  iterations: number,
  seed: number,
  hangMs = 60_000,
): Promise<FuzzMessage | { kind: 'hang' | 'out-of-memory'; target: string; last?: FuzzMessage; error?: string }> {
  const worker = new Worker(file, {
    workerData: { target, iterations, seed },
    resourceLimits: { maxOldGenerationSizeMb: 1024 },
  });
  let last: FuzzMessage | undefined;
  return new Promise((resolve) => {
    let timer = setTimeout(onHang, hangMs);
    function onHang() {
      void worker.terminate();
      resolve({ kind: 'hang', target, ...(last ? { last } : {}) });
    }
    worker.on('message', (m: FuzzMessage) => {
      clearTimeout(timer);
      if (m.kind === 'start') {
        last = m;
        timer = setTimeout(onHang, m.i < 0 || m.label ? hangMs * 2 : hangMs);
        return;
      }
      void worker.terminate();
      resolve(m);
    });
    worker.on('error', (err: Error & { code?: string }) => {
      clearTimeout(timer);
      resolve({
        kind: err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'out-of-memory' : 'hang',
        target,
        ...(last ? { last } : {}),
        error: err.stack ?? err.message,
      });
    });
  });
}

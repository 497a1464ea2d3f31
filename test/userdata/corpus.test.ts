// Walks test/fixtures/userdata/*: each folder is raw user data plus the parts, config, scripts and errors expected.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { httpIncludeFetcher } from '../../src/userdata/fetch-include';
import { processUserData } from '../../src/userdata/process-user-data';
import { processWindowsUserData, scriptsOf } from '../../src/userdata/windows-user-data';
import { FIXTURES } from '../helpers/repo';

type InputSpec = string | { file: string; gzip?: boolean; truncate?: number };
interface Serve {
  file?: string;
  status?: number;
  hang?: boolean;
}
interface CaseSpec {
  description: string;
  mode?: 'cloud-init' | 'cloudbase-init';
  inputs: { userData?: InputSpec; vendorData?: InputSpec; vendorData2?: InputSpec };
  instanceData?: string;
  launchIndex?: number;
  serve?: Record<string, Serve>;
}
interface ExpectedScript {
  name: string;
  source?: string;
  frequency?: string;
  kind?: string;
  content?: string;
  persist?: boolean;
}
interface Expected {
  parts?: Array<{ source: string; name: string; contentType: string }>;
  cloudConfig?: unknown;
  /** cloudbase-init mode: each part's work in the order it runs ({part, cloudConfig} or {part, scripts: names}). */
  steps?: Array<{ part: string; cloudConfig?: unknown; scripts?: string[] }>;
  userCloudConfig?: unknown;
  vendorCloudConfig?: unknown;
  scripts?: ExpectedScript[];
  boothooks?: ExpectedScript[];
  ignored?: Array<{ part: string; contentType: string }>;
  certificate?: boolean;
  partHandlers?: string[];
  errors?: Array<{ part: string; match: string }>;
}

const ROOT = join(FIXTURES, 'userdata');
const cases = readdirSync(ROOT)
  .filter((d) => existsSync(join(ROOT, d, 'case.json')))
  .sort();

let server: Server;
let base = '';
const routes = new Map<string, { dir: string; serve: Serve }>();

before(async () => {
  server = createServer((req, res) => {
    const r = routes.get(req.url ?? '');
    if (!r) {
      res.writeHead(404).end('not found');
      return;
    }
    if (r.serve.hang) return; // never answers: the fetcher's deadline must end it
    if (r.serve.status && r.serve.status !== 200) {
      res.writeHead(r.serve.status).end('no');
      return;
    }
    res
      .writeHead(200, { 'content-type': 'text/plain' })
      .end(substitute(readFileSync(join(r.dir, r.serve.file as string))));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

function substitute(data: Buffer): Buffer {
  return data.includes('@SERVER@') ? Buffer.from(data.toString('utf8').split('@SERVER@').join(base), 'utf8') : data;
}

function readInput(dir: string, spec: InputSpec | undefined): Buffer | undefined {
  if (spec === undefined) return undefined;
  const s = typeof spec === 'string' ? { file: spec } : spec;
  let data = substitute(readFileSync(join(dir, s.file)));
  if (s.gzip) data = gzipSync(data);
  if (s.truncate !== undefined) data = data.subarray(0, s.truncate);
  return data;
}

function checkScripts(actual: Array<Record<string, unknown>>, expected: ExpectedScript[], what: string): void {
  assert.deepEqual(
    actual.map((s) => {
      const o: Record<string, unknown> = {};
      for (const k of ['name', 'source', 'frequency', 'kind', 'persist'] as const)
        if (expected.some((e) => e[k] !== undefined)) o[k] = s[k];
      if (expected.some((e) => e.content !== undefined))
        o.content = Buffer.from(s.content as Uint8Array).toString('utf8');
      return o;
    }),
    expected.map((e) => Object.fromEntries(Object.entries(e).filter(([, v]) => v !== undefined))),
    what,
  );
}

function checkErrors(actual: Array<{ part: string; message: string }>, expected: Expected['errors']): void {
  const exp = expected ?? [];
  assert.equal(actual.length, exp.length, `errors: ${JSON.stringify(actual, null, 1)}`);
  exp.forEach((e, i) => {
    const a = actual[i] as { part: string; message: string };
    assert.equal(a.part.replace(base, '@SERVER@'), e.part, `error ${i} part (message: ${a.message})`);
    assert.match(a.message, new RegExp(e.match), `error ${i} message`);
  });
}

for (const name of cases) {
  test(`user-data corpus: ${name}`, async () => {
    const dir = join(ROOT, name);
    const spec = JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8')) as CaseSpec;
    const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Expected;
    for (const [path, serve] of Object.entries(spec.serve ?? {})) routes.set(path, { dir, serve });
    if (spec.mode === 'cloudbase-init') {
      const r = await processWindowsUserData(readInput(dir, spec.inputs.userData) as Buffer);
      checkErrors(r.errors, expected.errors);
      if (expected.steps !== undefined) {
        assert.deepEqual(
          r.steps.map((s) =>
            s.kind === 'cloud-config'
              ? { part: s.part, cloudConfig: s.config }
              : { part: s.part, scripts: (s.kind === 'heat' ? (s.scripts ?? []) : s.scripts).map((x) => x.name) },
          ),
          expected.steps,
          'steps',
        );
      }
      checkScripts(scriptsOf(r) as unknown as Array<Record<string, unknown>>, expected.scripts ?? [], 'scripts');
      assert.equal(r.certificate !== undefined, expected.certificate ?? false, 'certificate');
      if (expected.ignored) assert.deepEqual(r.ignored, expected.ignored);
      return;
    }
    const userData = readInput(dir, spec.inputs.userData);
    const vendorData = readInput(dir, spec.inputs.vendorData);
    const vendorData2 = readInput(dir, spec.inputs.vendorData2);
    const r = await processUserData(
      {
        ...(userData ? { userData } : {}),
        ...(vendorData ? { vendorData } : {}),
        ...(vendorData2 ? { vendorData2 } : {}),
      },
      {
        fetchInclude: httpIncludeFetcher({ timeoutMs: 1500 }),
        ...(spec.instanceData
          ? { instanceData: JSON.parse(readFileSync(join(dir, spec.instanceData), 'utf8')) as Record<string, unknown> }
          : {}),
        ...(spec.launchIndex !== undefined ? { launchIndex: spec.launchIndex } : {}),
      },
    );
    checkErrors(r.errors, expected.errors);
    if (expected.parts)
      assert.deepEqual(
        r.parts.map(({ source, name: n, contentType }) => ({ source, name: n, contentType })),
        expected.parts,
        'parts',
      );
    if (expected.cloudConfig !== undefined)
      assert.deepEqual(r.cloudConfig, expected.cloudConfig, 'merged cloud-config');
    if (expected.userCloudConfig !== undefined)
      assert.deepEqual(r.userCloudConfig, expected.userCloudConfig, 'user cloud-config');
    if (expected.vendorCloudConfig !== undefined)
      assert.deepEqual(r.vendorCloudConfig, expected.vendorCloudConfig, 'vendor cloud-config');
    checkScripts(r.scripts as unknown as Array<Record<string, unknown>>, expected.scripts ?? [], 'scripts');
    checkScripts(r.boothooks as unknown as Array<Record<string, unknown>>, expected.boothooks ?? [], 'boothooks');
    if (expected.ignored) assert.deepEqual(r.ignored, expected.ignored, 'ignored');
    assert.deepEqual(
      r.partHandlers.map((h) => h.name),
      expected.partHandlers ?? [],
      'part handlers',
    );
  });
}

// Azure as `devel serve-metadata --kind azure` answers it: IMDS (Metadata header, api-version, extended) and the
// wireserver (goal state, certificates, health reports recorded).
import type { HttpMockService, MockAnswer, MockFiles, MockRequest } from '../mock-service';

/**
 * API versions the mock accepts when the folder has no api-versions.txt (a few of IMDS's real ones, oldest to newest).
 */
const AZURE_MOCK_API_VERSIONS = [
  '2017-08-01',
  '2018-10-01',
  '2019-06-01',
  '2020-09-01',
  '2021-03-01',
  '2021-08-01',
  '2021-12-13',
  '2023-07-01',
];

/** A goal state for folders that carry no goalstate.xml. */
const DEFAULT_GOAL_STATE = `<?xml version="1.0" encoding="utf-8"?>
<GoalState xmlns:i="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="goalstate10.xsd" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <Version>2012-11-30</Version>
  <Incarnation>1</Incarnation>
  <Machine>
    <ExpectedState>Started</ExpectedState>
    <StopRolesDeadlineHint>300000</StopRolesDeadlineHint>
  </Machine>
  <Container>
    <ContainerId>b7a7e9f2-0d8c-4a55-9a8e-4c2b64d1e0a1</ContainerId>
    <RoleInstanceList>
      <RoleInstance>
        <InstanceId>d5fd8c84-7f6a-4f2d-8e47-1c1c1d0a3b7e.kiln-vm</InstanceId>
        <State>Started</State>
        <Configuration>
          <HostingEnvironmentConfig>http://168.63.129.16:80/machine/config</HostingEnvironmentConfig>
        </Configuration>
      </RoleInstance>
    </RoleInstanceList>
  </Container>
</GoalState>
`;

/** The wireserver's ?comp=Versions document (the versions a real one lists, newest first). */
const WIRESERVER_VERSIONS = `<?xml version="1.0" encoding="utf-8"?>
<Versions>
  <Preferred>
    <Version>2015-04-05</Version>
  </Preferred>
  <Supported>
    <Version>2015-04-05</Version>
    <Version>2012-11-30</Version>
    <Version>2012-09-15</Version>
    <Version>2012-05-15</Version>
    <Version>2011-12-31</Version>
    <Version>2011-10-15</Version>
    <Version>2011-08-31</Version>
    <Version>2011-04-07</Version>
    <Version>2010-12-15</Version>
    <Version>2010-28-10</Version>
  </Supported>
</Versions>
`;

/**
 * What one mock process remembers of a preprovisioned VM: the Ready health reports it received and the
 * reprovisiondata polls since the first, for pool.txt's `claim-after-ready N`.
 */
class AzurePoolState {
  readyReports = 0;
  pollsAfterReady = 0;
}

/** pool.txt: `unclaimed 404|410|drop` (the answer before the claim, 404 by default) and `claim-after-ready N`. */
interface PoolRules {
  unclaimed: '404' | '410' | 'drop';
  claimAfterReady?: number;
}

async function poolRules(files: MockFiles): Promise<PoolRules> {
  const rules: PoolRules = { unclaimed: '404' };
  const text = (await readText(files, 'pool.txt')) ?? '';
  for (const line of text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))) {
    const [key, value = ''] = line.split(/\s+/);
    if (key === 'unclaimed' && (value === '404' || value === '410' || value === 'drop')) rules.unclaimed = value;
    else if (key === 'claim-after-ready' && /^\d+$/.test(value)) rules.claimAfterReady = Number(value);
    else throw new Error(`pool.txt: unknown rule '${line}'; use 'unclaimed 404|410|drop' or 'claim-after-ready N'`);
  }
  return rules;
}

/**
 * Whether the pool VM is claimed (handed to a customer): reprovisiondata.xml exists and, with
 * `claim-after-ready N`, this mock has seen a Ready report and more than N polls since.
 */
async function isClaimed(files: MockFiles, pool: AzurePoolState, rules: PoolRules): Promise<boolean> {
  if (!(await files.read('reprovisiondata.xml'))) return false;
  return rules.claimAfterReady === undefined || (pool.readyReports > 0 && pool.pollsAfterReady > rules.claimAfterReady);
}

const json = (status: number, error: string): MockAnswer => ({
  status,
  body: JSON.stringify({ error }),
  headers: { 'content-type': 'application/json; charset=utf-8' },
});

async function readText(files: MockFiles, path: string): Promise<string | undefined> {
  const bytes = await files.read(path);
  return bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8');
}

/**
 * Answers one request as Azure would, from DIR: `instance.json` (the extended /metadata/instance document),
 * optional `api-versions.txt` (one accepted version a line), `goalstate.xml`, `certificates.pem` and
 * `hostingenvironment.xml` (the goal state's certificates and where they go). A preprovisioned VM: `pool.txt`
 * (see PoolRules), `reprovisiondata.xml` (the customer's ovf-env.xml, served once the VM is claimed; tests claim
 * it by writing the file) and `claimed-instance.json` (IMDS's document once claimed, instance.json otherwise).
 * IMDS refuses requests without `Metadata: true`, without or with an unknown api-version, or forwarded ones (400).
 */
async function azureAnswer(req: MockRequest, body: string, pool: AzurePoolState): Promise<MockAnswer> {
  const { url, path, files } = req;
  if (path === '/metadata' || path.startsWith('/metadata/')) {
    if (req.headers.metadata !== 'true') return json(400, 'Bad request. Required metadata header not specified');
    if (req.headers['x-forwarded-for']) return json(400, 'Bad request. Forwarded requests are not allowed');
    if (req.method !== 'GET') return json(405, 'Method not allowed');
    const version = url.searchParams.get('api-version');
    if (!version)
      return json(
        400,
        'Bad request. api-version was not specified in the request. For more information refer to aka.ms/azureimds',
      );
    const listed = (await readText(files, 'api-versions.txt'))
      ?.split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const versions = listed ?? AZURE_MOCK_API_VERSIONS;
    if (!versions.includes(version))
      return {
        ...json(400, 'Bad request. api-version is invalid or was not specified in the request.'),
        body: JSON.stringify({
          error:
            'Bad request. api-version is invalid or was not specified in the request. For more information refer to aka.ms/azureimds',
          newest_versions: versions.slice(-3).reverse(),
        }),
      };
    const rules = await poolRules(files);
    if (path === '/metadata/reprovisiondata') {
      if (pool.readyReports > 0) pool.pollsAfterReady++;
      if (await isClaimed(files, pool, rules))
        return {
          status: 200,
          body: (await files.read('reprovisiondata.xml')) ?? '',
          headers: { 'content-type': 'text/xml; charset=utf-8' },
        };
      if (rules.unclaimed === 'drop') return { status: 0, body: '', drop: true };
      return json(Number(rules.unclaimed), rules.unclaimed === '410' ? 'Gone' : 'Not found');
    }
    if (path !== '/metadata/instance' && !path.startsWith('/metadata/instance/')) return json(404, 'Not found');
    const claimedDoc = (await isClaimed(files, pool, rules)) ? await files.read('claimed-instance.json') : undefined;
    const doc = claimedDoc ?? (await files.read('instance.json'));
    if (!doc) return json(404, 'Not found');
    let value: unknown = JSON.parse(Buffer.from(doc).toString('utf8')) as unknown;
    // Only extended=true with a version that has it (2021-03-01 and later) shows the `extended` tree.
    if (value && typeof value === 'object' && (url.searchParams.get('extended') !== 'true' || version < '2021-03-01'))
      delete (value as Record<string, unknown>).extended;
    for (const key of path.slice('/metadata/instance'.length).split('/').filter(Boolean)) {
      if (Array.isArray(value) && /^\d+$/.test(key)) value = value[Number(key)];
      else if (value && typeof value === 'object') value = (value as Record<string, unknown>)[key];
      else value = undefined;
      if (value === undefined) return json(404, 'Not found');
    }
    if (url.searchParams.get('format') === 'text' && typeof value !== 'object')
      return { status: 200, body: String(value), headers: { 'content-type': 'text/plain; charset=utf-8' } };
    return { status: 200, body: JSON.stringify(value), headers: { 'content-type': 'application/json; charset=utf-8' } };
  }
  if (path === '/' && url.searchParams.get('comp') === 'Versions' && req.method === 'GET') {
    return { status: 200, body: WIRESERVER_VERSIONS, headers: { 'content-type': 'text/xml; charset=utf-8' } };
  }
  if (
    path.startsWith('/machine/') &&
    path.length > '/machine/'.length &&
    url.searchParams.get('comp') === 'config' &&
    req.method === 'GET'
  ) {
    // The goal state's config documents; the hosting environment (where the certificates go) from
    // hostingenvironment.xml.
    if (url.searchParams.get('type') !== 'hostingEnvironmentConfig') return { status: 404, body: 'not found\n' };
    const doc = await files.read('hostingenvironment.xml');
    return doc
      ? { status: 200, body: doc, headers: { 'content-type': 'text/xml; charset=utf-8' } }
      : { status: 404, body: 'not found\n' };
  }
  if (path === '/machine' || path === '/machine/') {
    // cloud-init and walinuxagent speak 2012-11-30; cloudbase-init 2015-04-05, once ?comp=Versions listed it.
    const version = req.headers['x-ms-version'];
    if (version !== '2012-11-30' && version !== '2015-04-05')
      return { status: 400, body: 'x-ms-version 2012-11-30 or 2015-04-05 required\n' };
    const comp = url.searchParams.get('comp');
    if (comp === 'goalstate' && req.method === 'GET') {
      // {{url}} in goalstate.xml stands for this server, so that its Certificates URL comes back here.
      const goal = ((await readText(files, 'goalstate.xml')) ?? DEFAULT_GOAL_STATE).replaceAll('{{url}}', req.self);
      return { status: 200, body: goal, headers: { 'content-type': 'text/xml; charset=utf-8' } };
    }
    if (comp === 'certificates' && req.method === 'GET') return certificatesAnswer(req);
    if (comp === 'health' && req.method === 'POST') {
      if (!/^text\/xml/.test(String(req.headers['content-type'] ?? '')))
        return { status: 400, body: 'Content-Type text/xml required\n' };
      if (!/<Health[\s>]/.test(body) || !/<State>(Ready|NotReady)<\/State>/.test(body))
        return { status: 400, body: 'not a health report\n' };
      if (/<State>Ready<\/State>/.test(body)) pool.readyReports++;
      return { status: 200, body: '' };
    }
    if (comp === 'roleProperties' && req.method === 'POST') {
      if (!/^text\/xml/.test(String(req.headers['content-type'] ?? '')))
        return { status: 400, body: 'Content-Type text/xml required\n' };
      if (!/<RoleProperties[\s>]/.test(body) || !/<Property name="[^"]+" value="[^"]*"/.test(body))
        return { status: 400, body: 'not a role properties document\n' };
      return { status: 200, body: '' };
    }
    return { status: 400, body: `unknown comp '${comp ?? ''}' for ${req.method}\n` };
  }
  return { status: 404, body: 'not found\n' };
}

/**
 * The certificates document: `certificates.pem` (certificates and keys, PEM) of DIR packed as PKCS#12 and
 * enveloped (CMS, 3DES) to the transport certificate the client sent, by the mock host's openssl, as Azure does.
 */
async function certificatesAnswer(req: MockRequest): Promise<MockAnswer> {
  const transport = req.headers['x-ms-guest-agent-public-x509-cert'];
  // cloud-init names the cipher; cloudbase-init sends none and gets the default, 3DES.
  const cipher = req.headers['x-ms-cipher-name'] ?? 'DES_EDE3_CBC';
  if (typeof transport !== 'string' || !transport || cipher !== 'DES_EDE3_CBC')
    return {
      status: 400,
      body: 'a transport certificate is required, and x-ms-cipher-name, when given, must be DES_EDE3_CBC\n',
    };
  const bundle = await req.files.read('certificates.pem');
  if (!bundle) return { status: 404, body: 'no certificates\n' };
  const recipient = `-----BEGIN CERTIFICATE-----\n${(transport.match(/.{1,64}/g) ?? []).join('\n')}\n-----END CERTIFICATE-----\n`;
  // From a file: openssl reads the certificates and the keys in two passes. PBE-SHA1-3DES and a SHA-1 MAC, as
  // Azure packs them (OpenSSL 3 defaults to PBES2/AES, which older CryptoAPI and wine cannot read).
  const p12 = req.run(
    [
      'openssl',
      'pkcs12',
      '-export',
      '-passout',
      'pass:',
      '-keypbe',
      'PBE-SHA1-3DES',
      '-certpbe',
      'PBE-SHA1-3DES',
      '-macalg',
      'SHA1',
      '-in',
      'certificates.pem',
    ],
    { files: { 'certificates.pem': bundle } },
  );
  if (p12.status !== 0) return { status: 500, body: `openssl pkcs12 -export failed: ${p12.stderr}` };
  const cms = req.run(['openssl', 'cms', '-encrypt', '-des3', '-binary', '-outform', 'DER', 'transport.pem'], {
    input: p12.stdout,
    files: { 'transport.pem': recipient },
  });
  if (cms.status !== 0) return { status: 500, body: `openssl cms -encrypt failed: ${cms.stderr}` };
  const body = `<?xml version="1.0" encoding="utf-8"?>\n<CertificateFile><Version>2012-11-30</Version><Incarnation>1</Incarnation><Format>Pkcs7BlobWithPfxContents</Format><Data>${Buffer.from(cms.stdout).toString('base64')}</Data></CertificateFile>\n`;
  return { status: 200, body, headers: { 'content-type': 'text/xml; charset=utf-8' } };
}

export const azureMock: HttpMockService = {
  kind: 'azure',
  transport: 'http',
  answers: () => {
    const pool = new AzurePoolState();
    return {
      anyMethod: async (req) => {
        // The health report and role properties are kept with the request.
        const body = req.method === 'POST' ? await req.body(1024 * 1024) : '';
        const answer = await azureAnswer(req, body, pool);
        return body ? { ...answer, keptBody: body } : answer;
      },
    };
  },
};

// `kiln devel serve-metadata` through main(): serves a fixture tree (EC2, Azure, GCE, Bigstep), with IMDSv2 rules and
// misbehaviour flags, then exits.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildFacts } from '../../src/build-info';
import type { CommandContext } from '../../src/cli/command';
import { parseInvocation } from '../../src/cli/parse-args';
import { COMMANDS } from '../../src/cli/registry';
import { UsageError } from '../../src/util/errors';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { azureSource } from '../../src/sources/azure/azure';
import { bigstepSource, BIGSTEP_URL_FILE } from '../../src/sources/bigstep';
import { ec2Source } from '../../src/sources/ec2/ec2';
import { gceSource } from '../../src/sources/gce';
import { fetchFormPoster } from '../../src/modules/phone-home';
import { Logger } from '../../src/util/log';
import { FIXTURES } from '../helpers/repo';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from '../sources/fake-finder';

/** Runs the command as main() would (parsing through the registry), mapping usage errors to exit code 2. */
async function main(opts: { argv: string[]; io: CommandContext['io'] }): Promise<number> {
  try {
    const inv = parseInvocation(opts.argv, COMMANDS, 'kiln');
    assert.ok(inv.command, 'the command is registered');
    const logger = new Logger();
    const ctx: CommandContext = {
      face: 'kiln',
      argv0: 'kiln',
      facts: buildFacts,
      root: '/',
      dryRun: false,
      debug: false,
      logger,
      log: logger.for('test'),
      io: opts.io,
      env: {},
      platform: () => assert.fail('not used'),
    };
    return await inv.command.run(ctx, inv.args);
  } catch (err) {
    if (err instanceof UsageError) {
      opts.io.err(`kiln: error: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}

async function serve(args: string[]): Promise<{ url: string; done: Promise<number>; err: () => string }> {
  let out = '';
  let err = '';
  const done = main({
    argv: ['devel', 'serve-metadata', ...args],
    io: { out: (s) => void (out += s), err: (s) => void (err += s) },
  });
  for (let i = 0; i < 100 && !/ at (http\S+)/.test(out); i++) {
    if (await Promise.race([done.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 20))])) break;
  }
  const url = / at (http\S+)/.exec(out)?.[1];
  assert.ok(url, `no URL printed; stdout: ${out} stderr: ${err}`);
  return { url, done, err: () => err };
}

test('serves an EC2 tree that the Ec2 source crawls with IMDSv2, then exits after --exit-after', async () => {
  const { url, done } = await serve([
    '--kind',
    'ec2',
    '--dir',
    join(FIXTURES, 'sources/ec2/imdsv2-required/tree'),
    '--imdsv2',
    'required',
    '--misbehave',
    'status,value=503,times=1',
    '--exit-after',
    '3',
  ]);
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const log = new Logger().for('test');
  const platform = new LinuxPlatform({ root: '/nonexistent-kiln-root', log });
  const data = await ec2Source.crawl({
    platform,
    log,
    kernelCmdline: '',
    dmi: { sys_vendor: 'Amazon EC2' },
    config: {},
    finder: new FakeFinder(platform),
    settings: { retries: 2, timeout: 2, max_wait: 5 },
    baseUrl: url,
  });
  assert.equal(data.instanceId, 'i-0123456789abcdef0');
  assert.equal(await done, 0);
});

test('serves Azure IMDS and the wireserver: the Azure source crawls it through a 500', async (t) => {
  const { url, done } = await serve([
    '--kind',
    'azure',
    '--dir',
    join(FIXTURES, 'sources/azure/happy-path/imds'),
    '--misbehave',
    'status,value=500,times=1,path=/metadata',
    '--exit-after',
    '3',
  ]);
  const log = new Logger().for('test');
  // A sandbox root: the crawl keeps a copy of ovf-env.xml under /var/lib/waagent.
  const platform = new LinuxPlatform({ root: tempDir(t), log });
  const data = await azureSource.crawl({
    platform,
    log,
    kernelCmdline: '',
    dmi: {},
    config: {},
    finder: new FakeFinder(platform),
    settings: { retries: 2, timeout: 2, max_wait: 5, report_ready_retry_sleep: 0.1 },
    baseUrl: url,
  });
  // No DMI UUID here: the instance id falls back to IMDS's vmId.
  assert.equal(data.instanceId, '13f56399-bd52-4150-9748-7190aae1ff21');
  assert.equal(data.subplatform, 'imds (IMDS)');
  assert.equal(await done, 0);
});

test('--kind gce serves a GCE tree the GCE source reads through metadata_url, header rules included', async (t) => {
  const { url, done } = await serve([
    '--kind',
    'gce',
    '--dir',
    join(FIXTURES, 'sources/gce/happy-path/tree'),
    '--exit-after',
    '3',
  ]);
  assert.equal(
    (await fetch(`${url}/computeMetadata/v1/instance/id`)).status,
    403,
    'no Metadata-Flavor header: refused',
  );
  const log = new Logger().for('test');
  const platform = new LinuxPlatform({ root: tempDir(t), log });
  const data = await gceSource.crawl({
    platform,
    log,
    kernelCmdline: '',
    dmi: { product_name: 'Google Compute Engine' },
    config: {},
    finder: new FakeFinder(platform),
    settings: { retries: 2, timeout: 2, max_wait: 5, metadata_url: `${url}/computeMetadata/v1/` },
  });
  assert.equal(data.instanceId, '5822432891731066937');
  assert.equal(data.region, 'us-central1');
  assert.equal(await done, 0);
});

test('bad flags are usage errors (exit 2) naming the flag', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['--kind', 'nosuchcloud', '--dir', '/tmp'], /--kind must be/],
    [['--kind', 'ec2'], /--dir DIR is required/],
    [['--kind', 'ec2', '--dir', '/tmp', '--listen', 'nowhere'], /--listen must be HOST:PORT/],
    [
      ['--kind', 'ec2', '--dir', '/tmp', '--listen', '127.0.0.1:80000'],
      /--listen must be HOST:PORT with a port from 0 to 65535 .*not '127\.0\.0\.1:80000'/,
    ],
    [['--kind', 'ec2', '--dir', '/nonexistent/kiln-tree'], /--dir \/nonexistent\/kiln-tree: no such folder/],
    [['--kind', 'ec2', '--dir', process.execPath], /--dir .*: not a folder/],
    [['--kind', 'ec2', '--dir', '/tmp', '--misbehave', 'explode'], /unknown misbehaviour 'explode'/],
  ];
  for (const [args, re] of cases) {
    let err = '';
    const code = await main({
      argv: ['devel', 'serve-metadata', ...args],
      io: { out: () => undefined, err: (s) => void (err += s) },
    });
    assert.equal(code, 2, args.join(' '));
    assert.match(err, re);
  }
});

test('--kind bigstep serves the document the Bigstep source reads through its url file', async (t) => {
  const tree = tempDir(t);
  writeFileSync(
    join(tree, 'metadata.json'),
    JSON.stringify({ 'instance-id': 'bs-cli', 'public-keys': ['ssh-ed25519 AAAAcli cli@x'] }),
  );
  writeFileSync(join(tree, 'userdata_raw'), '#cloud-config\n{}\n');
  const { url, done } = await serve(['--kind', 'bigstep', '--dir', tree, '--exit-after', '3']);
  const root = tempDir(t);
  mkdirSync(join(root, BIGSTEP_URL_FILE, '..'), { recursive: true });
  writeFileSync(join(root, BIGSTEP_URL_FILE), `${url}/metadata/bs-cli`);
  const log = new Logger().for('test');
  const platform = new LinuxPlatform({ root, log });
  const data = await bigstepSource.crawl({
    platform,
    log,
    kernelCmdline: '',
    dmi: {},
    config: {},
    finder: new FakeFinder(platform),
    settings: {},
  });
  assert.equal(data.instanceId, 'bs-cli');
  assert.deepEqual(data.publicKeys, ['ssh-ed25519 AAAAcli cli@x']);
  assert.equal(Buffer.from(data.userData ?? []).toString(), '#cloud-config\n{}\n');
  assert.equal(await done, 0);
});

test('--request-log records a password server request with its DomU_Request, so a test sees the acknowledgement', async (t) => {
  const tree = tempDir(t);
  writeFileSync(join(tree, 'password'), 'Pw-1\n');
  const log = join(tempDir(t), 'requests.log');
  const { url, done } = await serve(['--kind', 'cloudstack', '--dir', tree, '--request-log', log, '--exit-after', '2']);
  const ask = (what: string) => fetch(url, { headers: { DomU_Request: what } }).then((r) => r.text());
  assert.equal(await ask('send_my_password'), 'Pw-1');
  assert.equal(await ask('saved_password'), 'saved_password');
  await fetch(`${url}/latest/meta-data/`);
  assert.equal(await done, 0);
  const lines = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(
    lines.map((l) => [l.domu_request, l.status]),
    [
      ['send_my_password', 200],
      ['saved_password', 200],
      [undefined, 404],
    ],
  );
});

test('the CI loop: an access log on stdout, and --exit-after-phone-home ends the server with 0 when cc_phone_home posts its report', async () => {
  let out = '';
  let err = '';
  const done = main({
    argv: [
      'devel',
      'serve-metadata',
      '--kind',
      'ec2',
      '--dir',
      join(FIXTURES, 'sources/ec2/imdsv2-required/tree'),
      '--exit-after-phone-home',
      '--exit-after',
      '60',
    ],
    io: { out: (s) => void (out += s), err: (s) => void (err += s) },
  });
  for (let i = 0; i < 100 && !/ at (http\S+)/.test(out); i++) await new Promise((r) => setTimeout(r, 20));
  const url = / at (http\S+)/.exec(out)?.[1] as string;
  assert.ok(url, out + err);
  assert.equal((await fetch(`${url}/2021-03-23/meta-data/instance-id`)).status, 200);
  assert.match(out, /^127\.0\.0\.1 GET \/2021-03-23\/meta-data\/instance-id 200$/m);
  // The poster cc_phone_home uses, with the fields it posts.
  const status = await fetchFormPoster(`${url}/phone-home/i-0123456789abcdef0`, {
    instance_id: 'i-0123456789abcdef0',
    hostname: 'ci-guest',
    pub_key_ed25519: 'ssh-ed25519 AAAAC3Nza host',
  });
  assert.equal(status, 200);
  // The report ends the wait long before --exit-after's 60 s; the test's own timeout would fail it otherwise.
  assert.equal(await done, 0, err);
  assert.match(
    out,
    /^phone-home from 127\.0\.0\.1 \(\/phone-home\/i-0123456789abcdef0\): \{"instance_id":"i-0123456789abcdef0","hostname":"ci-guest","pub_key_ed25519":"ssh-ed25519 AAAAC3Nza host"\}$/m,
  );
  assert.match(out, /^127\.0\.0\.1 POST \/phone-home\/i-0123456789abcdef0 200$/m);
});

test('--exit-after-phone-home: no report before --exit-after is exit 1 with the reason; --quiet keeps stdout to the listening line; a serial kind is refused', async () => {
  let out = '';
  let err = '';
  const done = main({
    argv: [
      'devel',
      'serve-metadata',
      '--kind',
      'openstack',
      '--dir',
      join(FIXTURES, 'sources/ec2/imdsv2-required/tree'),
      '--exit-after-phone-home',
      '--exit-after',
      '1',
      '--quiet',
    ],
    io: { out: (s) => void (out += s), err: (s) => void (err += s) },
  });
  for (let i = 0; i < 100 && !/ at (http\S+)/.test(out); i++) await new Promise((r) => setTimeout(r, 20));
  const url = / at (http\S+)/.exec(out)?.[1] as string;
  assert.equal((await fetch(`${url}/openstack/`)).status, 404);
  // Not a report: neither a form nor a JSON object.
  assert.equal(
    (await fetch(`${url}/phone-home`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[1]' }))
      .status,
    400,
  );
  assert.equal(await done, 1);
  assert.equal(err, 'no instance posted to /phone-home before the server stopped (--exit-after 1)\n');
  assert.equal(out.trim().split('\n').length, 1, out);
  let refused = '';
  assert.equal(
    await main({
      argv: [
        'devel',
        'serve-metadata',
        '--kind',
        'smartos',
        '--dir',
        '.',
        '--socket',
        '/nonexistent/s',
        '--exit-after-phone-home',
      ],
      io: { out: () => undefined, err: (s) => void (refused += s) },
    }),
    2,
  );
  assert.match(refused, /--exit-after-phone-home needs an HTTP kind: smartos answers on a serial line/);
});

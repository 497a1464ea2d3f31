// winrm.vbs's command line: @{Key="value"} as winrm.cmd gives it, never Node's \" escapes; what cannot be written is
// refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PluginContext } from '../../src/plugins/plugin';
import { runWinrm, winrmArgument } from '../../src/plugins/winrm-command';
import type { RunOpts } from '../../src/platform/platform';
import { FakeFiles } from './fake-files';

test("winrmArgument: quotes are winrm's syntax and go as written; a blank alone gets quotes; what winrm.vbs cannot read back is undefined", () => {
  assert.equal(
    winrmArgument('winrm/config/Listener?Address=*+Transport=HTTPS'),
    'winrm/config/Listener?Address=*+Transport=HTTPS',
  );
  assert.equal(
    winrmArgument('@{Hostname="web01";CertificateThumbprint="0A1B"}'),
    '@{Hostname="web01";CertificateThumbprint="0A1B"}',
  );
  assert.equal(
    winrmArgument('@{Password="a b;c}";UserName="admin"}'),
    '@{Password="a b;c}";UserName="admin"}',
    'blanks, braces and ; inside a quoted value',
  );
  assert.equal(winrmArgument('C:\\Program Files\\winrm.vbs'), '"C:\\Program Files\\winrm.vbs"');
  assert.equal(winrmArgument('@{}'), '@{}');
  assert.equal(winrmArgument(''), '""');
  assert.equal(winrmArgument('@{Password="a"b"}'), undefined, 'a quote inside a value');
  assert.equal(winrmArgument('say "hi" there'), undefined, 'a blank outside quotes and braces');
});

test('runWinrm: cscript //NoLogo winrm.vbs with the arguments as written, verbatim; a value it cannot carry fails without the secret', async () => {
  const files = new FakeFiles();
  const opts: Array<RunOpts | undefined> = [];
  const run = files.run.bind(files);
  files.run = async (cmd, o) => {
    opts.push(o);
    return run(cmd, o);
  };
  const ctx = { platform: files } as unknown as PluginContext;
  await runWinrm(
    ctx,
    [
      'create',
      'winrm/config/service/certmapping?Issuer=AB+Subject=a@b+URI=*',
      '@{Enabled="true";Password="p w";UserName="admin"}',
    ],
    ['p w'],
  );
  assert.deepEqual(files.runs, [
    [
      'C:\\Windows\\System32\\cscript.exe',
      '//NoLogo',
      'C:\\Windows\\System32\\winrm.vbs',
      'create',
      'winrm/config/service/certmapping?Issuer=AB+Subject=a@b+URI=*',
      '@{Enabled="true";Password="p w";UserName="admin"}',
    ],
  ]);
  assert.equal(opts[0]?.verbatimArguments, true);
  assert.equal(opts[0]?.allowFailure, true);
  assert.deepEqual(opts[0]?.secrets, ['p w']);
  await assert.rejects(
    runWinrm(ctx, ['create', 'x', '@{Password="se"cret"}'], ['se"cret']),
    (e: Error) =>
      /winrm argument 3 \(@\{Password="\*\*\*\*\*\*\*\*"\}\) cannot be written/.test(e.message) &&
      !e.message.includes('se"cret'),
  );
  assert.equal(files.runs.length, 1, 'nothing run for it');
});

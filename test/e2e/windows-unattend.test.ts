// images/windows/Unattend.xml's specialize command, run as Windows Setup runs it (cmd.exe with that very command line)
// under wine with the built exe: where no metadata can be reached it must end in `exit 1` (done), never `exit 2`,
// which Setup reads as "reboot and run this again" — an image booted without metadata would reboot forever. Wine 8's
// cmd gets `a && b || c` wrong, so the line's own exit code is not what is asserted: kiln's, which picks the branch.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO } from '../helpers/repo';
import { tempDir } from '../helpers/temp';
import { privateWinePrefix, runUnderWine, wineExe } from '../helpers/wine';

/** Where the shipped files put kiln: cloudbase-init's install folder. */
const SHIPPED = 'C:\\Program Files\\Cloudbase Solutions\\Cloudbase-Init';

/** The specialize pass's command line, as Setup reads it from the answer file (XML entities decoded). */
function specializeCommand(): string {
  const xml = readFileSync(join(REPO, 'images', 'windows', 'Unattend.xml'), 'utf8');
  const path = /<settings pass="specialize">[\s\S]*?<Path>([^<]*)<\/Path>/.exec(xml)?.[1];
  assert.ok(path, 'Unattend.xml has a specialize RunSynchronousCommand');
  return path
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

test('the Unattend.xml specialize command under wine: kiln runs with the unattend conf and, with no metadata service found, exits 0, which the line turns into exit 1 (done), not 2 (reboot and rerun)', (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const dir = tempDir(t);
  const command = specializeCommand();
  // Setup's reading of the line: kiln's 0 becomes `exit 1` (done), anything else `exit 2` (reboot, run it again).
  const inner = /^cmd\.exe \/c "(.*) && exit 1 \|\| exit 2"$/.exec(command)?.[1];
  assert.ok(inner?.includes(SHIPPED), command);
  // The install folder, with the spaces its quoting must survive, in a folder of the test's own on Z:.
  const install = join(dir, 'Cloudbase Solutions', 'Cloudbase-Init');
  const winInstall = `Z:${install.replace(/\//g, '\\')}`;
  const here = (line: string) => line.split(SHIPPED).join(winInstall);
  mkdirSync(join(install, 'conf'), { recursive: true });
  mkdirSync(join(install, 'log'));
  symlinkSync(exe, join(install, 'kiln.exe'));
  // The shipped unattend conf in that folder, less the metadata services that would ask the network (this machine
  // sends nothing beyond loopback); with no config drive attached, no metadata service is found.
  const conf = here(readFileSync(join(REPO, 'images', 'windows', 'cloudbase-init-unattend.conf'), 'utf8')).replace(
    /^metadata_services=.*$/m,
    'metadata_services=cloudbaseinit.metadata.services.configdrive.ConfigDriveService',
  );
  writeFileSync(join(install, 'conf', 'cloudbase-init-unattend.conf'), conf);
  const prefix = privateWinePrefix(dir, {}, []);
  const runBatch = (name: string, lines: string[]) => {
    const batch = join(dir, name);
    writeFileSync(batch, lines.map((l) => `@${l}\r\n`).join(''));
    return runUnderWine('cmd', ['/c', `Z:${batch.replace(/\//g, '\\')}`], { WINEPREFIX: prefix });
  };
  const logFile = join(install, 'log', 'cloudbase-init-unattend.log');
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');

  // The whole line, as Setup starts it: its quoting brings kiln up with the unattend conf and its log folder.
  const whole = runBatch('specialize.cmd', [here(command)]);
  assert.match(
    log(),
    /No available metadata service found \(tried ConfigDriveService\)/,
    `kiln did not run with the unattend conf\n${whole.stdout}${whole.stderr}`,
  );
  // kiln's own exit code, which picks the branch. Wine 8's cmd runs `a && b || c` wrongly (b runs even when a
  // fails), so the branch is not read from the line's exit code here, but from kiln's.
  const own = runBatch('kiln-only.cmd', [here(inner as string), 'exit %errorlevel%']);
  assert.equal(
    own.code,
    0,
    `kiln's exit code, which the line turns into ${own.code === 0 ? 1 : 2}\n${own.stdout}${own.stderr}\n${log()}`,
  );
});

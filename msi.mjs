// Builds the MSI of a Windows target (build.mjs --release) with wixl and msibuild (Debian's wixl and msitools):
// kiln.exe and the files `kiln install` writes (the same texts the binary embeds), in cloudbase-init's layout, the
// cloudbase-init service from the MSI's ServiceInstall table, and cloudbase-init's MSI properties carried into both
// confs by IniFile rows. The template is images/windows/kiln.wxs. The output is byte-reproducible: every GUID is
// derived from the inputs, and the summary information's dates are SOURCE_DATE_EPOCH's (or 1980-01-01).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = dirname(fileURLToPath(import.meta.url));
const TEMPLATE = join(repo, 'images', 'windows', 'kiln.wxs');

/** The files the MSI installs from the target's install files (SetupComplete.cmd goes to Windows\Setup\Scripts). */
export const MSI_INSTALL_FILES = [
  'cloudbase-init.conf',
  'cloudbase-init-unattend.conf',
  'Unattend.xml',
  'SetupComplete.cmd',
];

/** The summary information's platform (Template) per target architecture. */
const MSI_PLATFORM = { x64: 'x64', arm64: 'Arm64' };

/** The components of kiln.wxs, each given a GUID of its own per architecture. */
const COMPONENTS = [
  'KilnService',
  'CloudbaseInitConf',
  'CloudbaseInitUnattendConf',
  'UnattendXml',
  'ConfProperties',
  'InjectPasswordOn',
  'InjectPasswordOff',
  'SerialPortLogging',
  'LogFolder',
  'LocalScriptsFolder',
  'SetupComplete',
];

/** When nothing else dates a release: 1980-01-01, the earliest date a cabinet can hold. */
const DEFAULT_EPOCH = 315532800;

/**
 * A GUID (RFC 9562 version 8, upper case as MSI writes them) made from the SHA-256 of NAME: the same name, the same
 * GUID.
 */
export function derivedGuid(name) {
  const b = createHash('sha256').update(`kiln msi: ${name}`).digest().subarray(0, 16);
  b[6] = (b[6] & 0x0f) | 0x80;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex').toUpperCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** KEY's value in the [DEFAULT] section of the conf TEXT, or undefined. */
function confValue(text, key) {
  let section = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const header = /^\[(.*)\]$/.exec(line);
    if (header) section = header[1];
    else if (section === 'DEFAULT' && !line.startsWith('#') && !line.startsWith(';')) {
      const at = line.indexOf('=');
      if (at > 0 && line.slice(0, at).trim() === key) return line.slice(at + 1).trim();
    }
  }
  return undefined;
}

/**
 * The defaults of cloudbase-init's MSI properties, read from the cloudbase-init.conf the target ships, so that an
 * msiexec line without them installs the conf unchanged.
 */
export function propertyDefaults(confText, confName) {
  const userName = confValue(confText, 'username');
  const userGroups = confValue(confText, 'groups');
  const inject = confValue(confText, 'inject_user_password');
  if (!userName) throw new Error(`${confName}: [DEFAULT] username is needed as the MSI's USERNAME default`);
  if (!userGroups) throw new Error(`${confName}: [DEFAULT] groups is needed as the MSI's USERGROUPS default`);
  if (inject !== 'true')
    throw new Error(
      `${confName}: [DEFAULT] inject_user_password must be true (the MSI's INJECTMETADATAPASSWORD defaults to on, as cloudbase-init's)`,
    );
  for (const [key, value] of [
    ['username', userName],
    ['groups', userGroups],
  ]) {
    if (/[[\]{}"]/.test(value))
      throw new Error(
        `${confName}: [DEFAULT] ${key}: ${JSON.stringify(value)} holds a character MSI formatting or wixl would change`,
      );
  }
  return { userName, userGroups };
}

/**
 * The IniFile rows (msidbIniFileActionAddLine: the key is written, replacing its value) that carry cloudbase-init's MSI
 * properties into both confs as its installer writes them: USERNAME → username, USERGROUPS → groups,
 * INJECTMETADATAPASSWORD → inject_user_password (true when not empty), LOGGINGSERIALPORTNAME →
 * logging_serial_port_settings as `PORT,115200,N,8` (only when given).
 */
export function iniFileRows() {
  const rows = [];
  for (const [file, tag] of [
    ['cloudbase-init.conf', 'Service'],
    ['cloudbase-init-unattend.conf', 'Unattend'],
  ]) {
    rows.push([`UserName${tag}`, file, 'username', '[USERNAME]', 'ConfProperties']);
    rows.push([`UserGroups${tag}`, file, 'groups', '[USERGROUPS]', 'ConfProperties']);
    rows.push([`InjectOn${tag}`, file, 'inject_user_password', 'true', 'InjectPasswordOn']);
    rows.push([`InjectOff${tag}`, file, 'inject_user_password', 'false', 'InjectPasswordOff']);
    rows.push([
      `SerialPort${tag}`,
      file,
      'logging_serial_port_settings',
      '[LOGGINGSERIALPORTNAME],115200,N,8',
      'SerialPortLogging',
    ]);
  }
  return rows.map(([id, file, key, value, component]) => ({ id, file, key, value, component }));
}

const sqlString = (s) => `'${s.replace(/'/g, "''")}'`;

/** The components of kiln.wxs that are installed only when a property says so (the Component table's Condition). */
export const COMPONENT_CONDITIONS = {
  InjectPasswordOn: 'INJECTMETADATAPASSWORD',
  InjectPasswordOff: 'NOT INJECTMETADATAPASSWORD',
  SerialPortLogging: 'LOGGINGSERIALPORTNAME',
};

/**
 * The SQL msibuild runs after wixl: the components' conditions, the IniFile table and its rows, and the two standard
 * actions that apply it.
 */
function iniFileSql() {
  const queries = Object.entries(COMPONENT_CONDITIONS).map(
    ([c, condition]) =>
      `UPDATE \`Component\` SET \`Condition\` = ${sqlString(condition)} WHERE \`Component\` = ${sqlString(c)}`,
  );
  queries.push(
    'CREATE TABLE `IniFile` (`IniFile` CHAR(72) NOT NULL, `FileName` CHAR(255) NOT NULL LOCALIZABLE, `DirProperty` CHAR(72), `Section` CHAR(96) NOT NULL LOCALIZABLE, `Key` CHAR(128) NOT NULL LOCALIZABLE, `Value` CHAR(255) NOT NULL LOCALIZABLE, `Action` SHORT NOT NULL, `Component_` CHAR(72) NOT NULL PRIMARY KEY `IniFile`)',
  );
  for (const r of iniFileRows()) {
    queries.push(
      `INSERT INTO \`IniFile\` (\`IniFile\`, \`FileName\`, \`DirProperty\`, \`Section\`, \`Key\`, \`Value\`, \`Action\`, \`Component_\`) VALUES (${[r.id, r.file, 'CONFFOLDER', 'DEFAULT', r.key, r.value].map(sqlString).join(', ')}, 0, ${sqlString(r.component)})`,
    );
  }
  // Windows Installer's standard numbers: after RemoveFiles' neighbours on removal, after InstallFiles on install.
  queries.push("INSERT INTO `InstallExecuteSequence` (`Action`, `Sequence`) VALUES ('RemoveIniValues', 3100)");
  queries.push("INSERT INTO `InstallExecuteSequence` (`Action`, `Sequence`) VALUES ('WriteIniValues', 5100)");
  return queries;
}

/**
 * The byte offset in FILE of the summary information stream's property section (FMTID_SummaryInformation), found once.
 */
function summarySection(file) {
  const fmtid = Buffer.from('e0859ff2f94f6810ab9108002b27b3d9', 'hex');
  const at = file.indexOf(fmtid);
  if (at < 28 || file.indexOf(fmtid, at + 1) >= 0)
    throw new Error('the MSI has no single summary information stream to date');
  const stream = at - 28;
  if (file.readUInt16LE(stream) !== 0xfffe)
    throw new Error('the summary information stream has no property set header');
  return stream + file.readUInt32LE(at + 16);
}

/**
 * Sets the summary information's creation and last-saved dates (PIDs 12 and 13, FILETIME) of the MSI at PATH to
 * EPOCH seconds: wixl writes the time it ran and takes no SOURCE_DATE_EPOCH. The stream is small and written whole
 * by libmsi; every field is checked before it is changed, and msiinfo must read the new dates back.
 */
function dateSummary(path, epoch) {
  const file = readFileSync(path);
  const section = summarySection(file);
  const size = file.readUInt32LE(section);
  const count = file.readUInt32LE(section + 4);
  const filetime = (BigInt(epoch) + 11644473600n) * 10000000n;
  let dated = 0;
  for (let i = 0; i < count; i++) {
    const pid = file.readUInt32LE(section + 8 + i * 8);
    const offset = file.readUInt32LE(section + 12 + i * 8);
    if (pid !== 12 && pid !== 13) continue;
    const VT_FILETIME = 64;
    if (offset + 12 > size || file.readUInt32LE(section + offset) !== VT_FILETIME)
      throw new Error(`the summary information's property ${pid} is not a date`);
    file.writeBigUInt64LE(filetime, section + offset + 4);
    dated++;
  }
  if (dated !== 2) throw new Error(`the summary information holds ${dated} of its two dates`);
  writeFileSync(path, file);
  const info = execFileSync('msiinfo', ['suminfo', path], {
    encoding: 'utf8',
    env: { ...process.env, TZ: 'UTC', LC_ALL: 'C' },
  });
  const shown = new Date(epoch * 1000)
    .toUTCString()
    .replace(
      /^(\w+), (\d+) (\w+) (\d+) (\S+) GMT$/,
      (_, d, n, m, y, t) => `${d} ${m} ${String(Number(n)).padStart(2)} ${t} ${y}`,
    );
  for (const label of ['Created', 'Last saved']) {
    if (!info.includes(`${label}: ${shown}`))
      throw new Error(
        `msiinfo does not read the date just written into ${path} (${label}: expected ${shown}):\n${info}`,
      );
  }
}

/** wixl's version, for the SBOM's tools. */
export function wixlVersion() {
  return execFileSync('wixl', ['--version'], { encoding: 'utf8' }).trim();
}

/**
 * Writes OUTPUT, the MSI of TARGET (a Windows target of targets/) carrying EXE as kiln.exe and FILES (install file
 * name → text as the binary embeds it), for kiln VERSION, dated EPOCH (seconds) or 1980-01-01.
 */
export function buildMsi({ target, exe, files, version, output, epoch = DEFAULT_EPOCH }) {
  const platform = MSI_PLATFORM[target.arch];
  if (target.os !== 'win' || !platform) throw new Error(`${target.name}: no MSI for ${target.os}-${target.arch}`);
  const missing = MSI_INSTALL_FILES.filter((f) => files[f] === undefined);
  if (missing.length)
    throw new Error(`${target.name}: installFiles lacks ${missing.join(', ')}, which the MSI installs`);
  const { userName, userGroups } = propertyDefaults(
    files['cloudbase-init.conf'],
    `${target.name}: cloudbase-init.conf`,
  );
  const stage = mkdtempSync(join(tmpdir(), 'kiln-msi-'));
  try {
    copyFileSync(exe, join(stage, 'kiln.exe'));
    for (const name of MSI_INSTALL_FILES) writeFileSync(join(stage, name), files[name]);
    // The cabinet records each file's modification time.
    for (const name of ['kiln.exe', ...MSI_INSTALL_FILES]) utimesSync(join(stage, name), epoch, epoch);
    writeFileSync(join(stage, 'kiln.wxs'), readFileSync(TEMPLATE));
    const inputs = createHash('sha256').update(readFileSync(exe));
    for (const name of MSI_INSTALL_FILES) inputs.update(`\0${name}\0${files[name]}`);
    inputs.update(readFileSync(TEMPLATE));
    const defines = {
      Version: version,
      // A new product per version and architecture; one upgrade code per architecture, so a newer MSI replaces an
      // older.
      ProductCode: derivedGuid(`product ${target.arch} ${version}`),
      UpgradeCode: derivedGuid(`upgrade ${target.arch}`),
      UserName: userName,
      UserGroups: userGroups,
      ...Object.fromEntries(COMPONENTS.map((c) => [`Guid.${c}`, derivedGuid(`component ${target.arch} ${c}`)])),
    };
    const partial = join(stage, 'kiln.msi');
    // wixl 0.101 knows x86, intel, x64 and ia64, not arm64: both are built as x64 (64-bit components,
    // ProgramFiles64Folder) and the summary's platform is then set to the target's, which is what Windows Installer
    // checks.
    execFileSync(
      'wixl',
      ['-a', 'x64', '-o', partial, ...Object.entries(defines).flatMap(([k, v]) => ['-D', `${k}=${v}`]), 'kiln.wxs'],
      { cwd: stage, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    execFileSync('msibuild', [partial, ...iniFileSql().flatMap((q) => ['-q', q])], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    // The package code (the summary's revision number) names these exact contents.
    const packageCode = `{${derivedGuid(`package ${target.arch} ${inputs.digest('hex')}`)}}`;
    execFileSync('msibuild', [partial, '-s', `kiln ${version}`, 'kiln', `${platform};1033`, packageCode], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    dateSummary(partial, epoch);
    renameSync(partial, output);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

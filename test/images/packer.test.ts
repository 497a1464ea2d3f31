// `packer validate` on the Packer templates of images/packer/, with dummy variables and no network, and proof
// that it really parses them: a broken copy of each must fail.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { installCommand } from '../../src/cli/install';
import { main } from '../../src/main';
import { parseXml, type XmlElement } from '../../src/util/xml-reader';
import { readProvisioners, type Provisioner } from '../helpers/packer-template';
import { REPO } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

const IMAGES = join(REPO, 'images');

interface Template {
  file: string;
  /** Dummy values for the variables that have no default; `FILE` is replaced by a file that exists. */
  vars: Record<string, string>;
}

const TEMPLATES: Template[] = [
  // The checksum defaults name Debian's SHA512SUMS URL, which validate would fetch: none here (no network).
  {
    file: 'debian-kiln.pkr.hcl',
    vars: {
      debian_image: '/nonexistent/debian-12-genericcloud-amd64.qcow2',
      debian_image_checksum: 'none',
      kiln_binary: 'FILE',
    },
  },
  {
    file: 'windows-kiln.pkr.hcl',
    vars: {
      windows_iso: '/nonexistent/windows.iso',
      windows_iso_checksum: 'none',
      virtio_win_iso: '/nonexistent/virtio-win.iso',
      autounattend: 'FILE',
      winrm_password: 'dummy-password',
      kiln_binary: 'FILE',
    },
  },
];

/** A network namespace of its own when we may make one, so that a validate that tried to download fails. */
function offline(): string[] {
  return isRoot() && hasCommand('unshare') && spawnSync('unshare', ['--net', 'true']).status === 0
    ? ['unshare', '--net']
    : [];
}

/** Runs `packer validate` on TEMPLATE with its dummy variables; HOME and the cache are private, checkpoint off. */
function validate(t: TestContext, template: Template, path: string): { status: number | null; output: string } {
  const dir = tempDir(t, 'kiln-packer-');
  const dummy = join(dir, 'dummy-file');
  writeFileSync(dummy, 'not a real binary\n');
  const vars = Object.entries(template.vars).flatMap(([k, v]) => ['-var', `${k}=${v === 'FILE' ? dummy : v}`]);
  const [cmd, ...pre] = [...offline(), 'packer'];
  const r = spawnSync(cmd as string, [...pre, 'validate', ...vars, path], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dir,
      PACKER_CACHE_DIR: join(dir, 'cache'),
      CHECKPOINT_DISABLE: '1',
    },
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}${r.error ? String(r.error) : ''}` };
}

/**
 * The packer block the templates open with: Packer 1.10 or later and the qemu plugin, which Packer no longer builds in.
 */
const PACKER_BLOCK = /^packer \{\n[\s\S]*?^\}\n\n/m;

/**
 * The qemu plugin's UEFI arguments (builder/qemu/config.go's QemuEFIBootConfig), which Packer 1.6.6's built-in
 * qemu builder predates.
 */
const EFI_ARGUMENTS = /^\s*efi_(?:boot|firmware_code|firmware_vars)\s*=.*\n/gm;

/**
 * TEXT as Packer 1.6.6 (the only packer Debian has) can validate it: without the packer block, whose
 * required_version it fails and whose required_plugins block it does not know, and without the plugin's EFI
 * arguments. Everything else is checked as written.
 */
function forPacker166(text: string): string {
  const stripped = text.replace(PACKER_BLOCK, '');
  assert.notEqual(stripped, text, 'the template has no packer block to strip');
  return stripped.replace(EFI_ARGUMENTS, '');
}

/**
 * A copy of images/packer and images/windows (the Windows template uploads ../windows/Unattend.xml), its
 * templates made validatable by Packer 1.6.6 (forPacker166).
 */
function copyImages(t: TestContext): string {
  const dir = join(tempDir(t, 'kiln-packer-copy-'), 'images');
  mkdirSync(dir);
  cpSync(join(IMAGES, 'packer'), join(dir, 'packer'), { recursive: true });
  cpSync(join(IMAGES, 'windows'), join(dir, 'windows'), { recursive: true });
  for (const { file } of TEMPLATES)
    writeFileSync(join(dir, 'packer', file), forPacker166(readFileSync(join(dir, 'packer', file), 'utf8')));
  return join(dir, 'packer');
}

/** The provisioners of images/packer/FILE, in build order. */
function provisionersOf(file: string): Provisioner[] {
  return readProvisioners(join(IMAGES, 'packer', file));
}

/** The Debian template's capture step: its last provisioner's one script. */
function captureScript(): string {
  const last = provisionersOf('debian-kiln.pkr.hcl').at(-1);
  assert.equal(last?.scripts.length, 1, 'the last provisioner runs one script');
  return readFileSync(last?.scripts[0] as string, 'utf8');
}

test("the Debian template's capture step leaves no SSH password login: its script's clean line removes the drop-in the seed's ssh_pwauth wrote", async (t) => {
  const line = [...captureScript().matchAll(/^(cloud-init clean .*)$/gm)].at(-1)?.[1];
  assert.ok(line, 'the capture script cleans');
  const root = tempDir(t);
  mkdirSync(join(root, 'etc/ssh/sshd_config.d'), { recursive: true });
  // What set_passwords writes for ssh_pwauth: true, and what sshd reads before sshd_config's own line.
  writeFileSync(join(root, 'etc/ssh/sshd_config.d/50-cloud-init.conf'), 'PasswordAuthentication yes\n');
  writeFileSync(
    join(root, 'etc/ssh/sshd_config'),
    'Include /etc/ssh/sshd_config.d/*.conf\nPasswordAuthentication no\n',
  );
  let err = '';
  const code = await main({
    argv: ['--root', root, ...line.split(/\s+/).slice(1)],
    argv0: '/usr/bin/cloud-init',
    env: {},
    io: { out: () => undefined, err: (s) => void (err += s) },
  });
  assert.equal(code, 0, err);
  assert.equal(
    existsSync(join(root, 'etc/ssh/sshd_config.d/50-cloud-init.conf')),
    false,
    `'${line}' left the drop-in that turns password login on`,
  );
});

test('every provisioner of both templates runs scripts of images/packer/scripts/ (nothing inline), each there, strict and parsed by sh; every script there is used', () => {
  const used = new Set<string>();
  for (const { file } of TEMPLATES) {
    for (const p of provisionersOf(file)) {
      assert.equal(p.inline, false, `${file}: a ${p.type} provisioner keeps its commands inline`);
      if (p.type === 'file') continue;
      assert.ok(p.scripts.length > 0, `${file}: a ${p.type} provisioner runs no script`);
      for (const script of p.scripts) {
        assert.equal(
          dirname(script),
          join(IMAGES, 'packer', 'scripts'),
          `${file}: ${script} is not in images/packer/scripts`,
        );
        assert.ok(existsSync(script), `${file}: ${script} does not exist`);
        used.add(basename(script));
        const text = readFileSync(script, 'utf8');
        if (script.endsWith('.sh')) {
          assert.match(text, /^#!\/bin\/sh\n/, script);
          assert.match(text, /^set -eu$/m, `${script} does not stop at the first failure`);
          const r = spawnSync('sh', ['-n', script], { encoding: 'utf8' });
          assert.equal(r.status, 0, `${script}: ${r.stderr}`);
        } else {
          assert.ok(script.endsWith('.ps1'), `${script}: neither a shell nor a PowerShell script`);
          assert.match(text, /^\$ErrorActionPreference = 'Stop'$/m, `${script} does not stop at the first error`);
        }
      }
    }
  }
  assert.deepEqual(
    readdirSync(join(IMAGES, 'packer', 'scripts')).filter((f) => !used.has(f)),
    [],
    'scripts no template runs',
  );
});

test("the templates check what they boot by default and keep the Debian build's serial console", () => {
  const debian = readFileSync(join(IMAGES, 'packer', 'debian-kiln.pkr.hcl'), 'utf8');
  const windows = readFileSync(join(IMAGES, 'packer', 'windows-kiln.pkr.hcl'), 'utf8');
  const defaultOf = (hcl: string, name: string) =>
    new RegExp(`variable "${name}" \\{[^}]*?default\\s*=\\s*"([^"]*)"`).exec(hcl)?.[1];
  assert.equal(
    defaultOf(debian, 'debian_image_checksum'),
    'file:https://cloud.debian.org/images/cloud/bookworm/latest/SHA512SUMS',
  );
  // A Windows ISO is the user's own: no default, so none is built unchecked by accident.
  assert.equal(defaultOf(windows, 'windows_iso_checksum'), undefined);
  assert.match(windows, /variable "windows_iso_checksum" \{/);
  assert.match(debian, /qemuargs\s*=\s*\[\["-serial", "file:\$\{var\.serial_log\}"\]\]/);
});

test("the Debian template's last step is the image check, which stops the build on an error and not on warnings", () => {
  assert.equal(captureScript().trimEnd().split('\n').at(-1), 'kiln check || [ $? -eq 2 ]');
});

function packerThere(t: TestContext): boolean {
  return need(t, hasCommand('packer'), 'packer is not installed (apt-get install packer; .ci/run installs it)');
}

for (const template of TEMPLATES) {
  test(`packer validate accepts images/packer/${template.file} (without its packer block, which 1.6.6 refuses)`, (t) => {
    if (!packerThere(t)) return;
    const r = validate(t, template, join(copyImages(t), template.file));
    assert.equal(r.status, 0, r.output);
    // The block is stripped for that reason alone: the template as written fails on it and nothing else.
    const asWritten = validate(t, template, join(IMAGES, 'packer', template.file));
    assert.notEqual(asWritten.status, 0, asWritten.output);
    assert.match(asWritten.output, /required_plugins|Unsupported Packer Core version/);
    assert.doesNotMatch(asWritten.output, /Unsupported argument|Bad script|no such file/, asWritten.output);
  });

  test(`${template.file} requires Packer 1.10 or later and the qemu plugin from github.com/hashicorp/qemu`, () => {
    const text = readFileSync(join(IMAGES, 'packer', template.file), 'utf8');
    const block = PACKER_BLOCK.exec(text)?.[0];
    assert.ok(block, 'no packer block at the top level');
    // The first thing after the header comment, as `packer init` users expect it.
    assert.equal(text.indexOf(block), text.search(/^(?!#)\S/m), 'the packer block is not the first block');
    assert.match(block, /^ {2}required_version = ">= 1\.10\.0"$/m);
    assert.match(
      block,
      /^ {2}required_plugins \{\n {4}qemu = \{\n {6}source {2}= "github\.com\/hashicorp\/qemu"\n {6}version = ">= 1\.1\.0"\n {4}\}\n {2}\}\n\}/m,
    );
    assert.equal(/\bsource "qemu" "/.test(text), true, 'the plugin named is the one the source uses');
  });

  test(`packer validate rejects a broken copy of ${template.file}`, (t) => {
    if (!packerThere(t)) return;
    const dir = copyImages(t);
    const path = join(dir, template.file);
    const good = readFileSync(path, 'utf8');
    // The copy as it is passes, so each failure below comes from the break alone.
    assert.equal(validate(t, template, path).status, 0);
    const breaks: Array<[string, string]> = [
      ['a missing closing brace', good.replace(/\}\s*$/, '\n')],
      [
        'an argument the qemu builder does not have',
        good.replace(/^(\s*)headless(\s*)= true$/m, '$1headless$2= true\n$1no_such_setting = true'),
      ],
      ['a value of the wrong type', good.replace(/^(\s*)headless(\s*)= true$/m, '$1headless$2= "sometimes"')],
      [
        'a variable without a value',
        good
          .replace(
            /^variable "kiln_binary"/m,
            'variable "kiln_binary_unset" {\n  type = string\n}\n\nvariable "kiln_binary"',
          )
          .replace(/source(\s*)= var\.kiln_binary/, 'source$1= var.kiln_binary_unset'),
      ],
    ];
    for (const [what, text] of breaks) {
      assert.notEqual(text, good, `the break (${what}) changed nothing: the template no longer has what it looks for`);
      writeFileSync(path, text);
      const r = validate(t, template, path);
      assert.notEqual(r.status, 0, `validate accepted ${what}:\n${r.output}`);
      assert.match(r.output, /Error/, what);
    }
  });
}

test('the templates are in packer fmt form', (t) => {
  if (!packerThere(t)) return;
  const r = spawnSync('packer', ['fmt', '-check', '-diff', join(IMAGES, 'packer')], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', CHECKPOINT_DISABLE: '1' },
  });
  assert.equal(r.status, 0, `run \`packer fmt images/packer\`:\n${r.stdout}${r.stderr}`);
});

test('packer validate sees a kiln binary that is not there', (t) => {
  if (!packerThere(t)) return;
  const template = { ...(TEMPLATES[0] as Template) };
  template.vars = { ...template.vars, kiln_binary: '/nonexistent/kiln-linux-x64' };
  const r = validate(t, template, join(copyImages(t), template.file));
  assert.notEqual(r.status, 0, r.output);
  assert.match(r.output, /nonexistent\/kiln-linux-x64/);
});

test('the templates call kiln install only with flags it has, and the build seed matches the Debian template', () => {
  const known = new Set([...(installCommand.flags?.boolean ?? []), ...(installCommand.flags?.string ?? [])]);
  for (const { file } of TEMPLATES) {
    const lines = provisionersOf(file)
      .flatMap((p) => p.scripts)
      .flatMap((s) => readFileSync(s, 'utf8').split('\n'))
      .filter((l) => /kiln[^ ]*' install|KILN_UPLOAD"? install/.test(l));
    assert.ok(lines.length > 0, `${file} does not run kiln install`);
    for (const line of lines)
      for (const [, flag] of line.matchAll(/--([a-z-]+)/g))
        assert.ok(known.has(flag as string), `${file}: kiln install has no --${flag}`);
  }
  const debian = readFileSync(join(IMAGES, 'packer', 'debian-kiln.pkr.hcl'), 'utf8');
  const seed = readFileSync(join(IMAGES, 'packer', 'debian-seed', 'user-data'), 'utf8');
  assert.match(seed, /^#cloud-config\n/);
  const password = /^password: (\S+)$/m.exec(seed)?.[1];
  assert.ok(password, 'the seed sets no password');
  assert.match(
    debian,
    new RegExp(`build_password = "${password}"`),
    'the template logs in with another password than the seed sets',
  );
  assert.match(debian, /ssh_username = "debian"/);
  assert.ok(
    provisionersOf('debian-kiln.pkr.hcl').at(-1)?.environmentVars.includes('BUILD_USER=debian'),
    'the capture step must lock the build user, debian',
  );
  assert.match(captureScript(), /^passwd --lock "\$BUILD_USER"$/m, 'the build password must be locked before capture');
  assert.match(readFileSync(join(IMAGES, 'packer', 'debian-seed', 'meta-data'), 'utf8'), /^instance-id: \S+$/m);
});

/** The Windows template's qemu source block. */
function windowsSource(): string {
  const hcl = readFileSync(join(IMAGES, 'packer', 'windows-kiln.pkr.hcl'), 'utf8');
  const block = /^source "qemu" "windows-kiln" \{\n([\s\S]*?)^\}$/m.exec(hcl)?.[1];
  assert.ok(block, 'no qemu source in the Windows template');
  return block;
}

test('the Windows template runs setup on a virtio disk and NIC with the virtio-win CD attached, and boots OVMF when firmware is uefi', () => {
  const hcl = readFileSync(join(IMAGES, 'packer', 'windows-kiln.pkr.hcl'), 'utf8');
  const source = windowsSource();
  assert.match(source, /^\s*disk_interface\s*= "virtio"$/m);
  assert.match(source, /^\s*net_device\s*= "virtio-net"$/m);
  // -cdrom, not -drive: a -drive in qemuargs replaces every drive Packer would add (the disk, the installation ISO).
  assert.match(source, /^\s*qemuargs\s*= \[\["-cdrom", var\.virtio_win_iso\]\]$/m);
  assert.doesNotMatch(source, /"-drive"/);
  assert.match(
    hcl,
    /variable "virtio_win_iso" \{\n\s*type\s*= string\n\s*description/,
    "virtio_win_iso is the user's, without a default",
  );
  assert.match(hcl, /variable "firmware" \{[^}]*default\s*= "bios"/);
  // UEFI exactly when firmware is uefi: the plugin turns efi_boot on by itself when either firmware path is set.
  assert.match(source, /^\s*efi_boot\s*= var\.firmware == "uefi"$/m);
  assert.match(source, /^\s*efi_firmware_code\s*= var\.firmware == "uefi" \? var\.efi_firmware_code : ""$/m);
  assert.match(source, /^\s*efi_firmware_vars\s*= var\.firmware == "uefi" \? var\.efi_firmware_vars : ""$/m);
  assert.equal(
    [...source.matchAll(EFI_ARGUMENTS)].length,
    3,
    'forPacker166 strips the three EFI arguments and nothing else',
  );
});

const UNATTEND_NS = 'urn:schemas-microsoft-com:unattend';

/** images/packer/autounattend/FIRMWARE/Autounattend.xml, parsed (a document that is not well-formed throws). */
function autounattend(firmware: 'bios' | 'uefi'): XmlElement {
  const path = join(IMAGES, 'packer', 'autounattend', firmware, 'Autounattend.xml');
  return parseXml(readFileSync(path, 'utf8'), path);
}

/** The elements named LOCAL anywhere under EL, in document order. */
function descendants(el: XmlElement, local: string): XmlElement[] {
  return el.children.flatMap((c) => [
    ...(c.local === local && c.ns === UNATTEND_NS ? [c] : []),
    ...descendants(c, local),
  ]);
}

function textOf(el: XmlElement, local: string): string | undefined {
  return descendants(el, local)[0]?.text.trim();
}

for (const firmware of ['bios', 'uefi'] as const) {
  test(`autounattend/${firmware}/Autounattend.xml is well-formed, loads the virtio disk and NIC drivers in windowsPE from the virtio-win CD, and partitions for ${firmware === 'bios' ? 'BIOS (MBR)' : 'UEFI (GPT)'}`, () => {
    const root = autounattend(firmware);
    assert.equal(root.local, 'unattend');
    assert.equal(root.ns, UNATTEND_NS);
    const pe = root.children.find((c) => c.local === 'settings' && c.attributes.pass === 'windowsPE');
    assert.ok(pe, 'no windowsPE pass');
    const pnp = pe.children.find((c) => c.attributes.name === 'Microsoft-Windows-PnpCustomizationsWinPE');
    assert.ok(pnp, 'the windowsPE pass loads no drivers (Microsoft-Windows-PnpCustomizationsWinPE)');
    const paths = descendants(pnp, 'Path').map((p) => p.text.trim());
    assert.deepEqual(paths, ['E:\\viostor\\2k22\\amd64', 'E:\\NetKVM\\2k22\\amd64']);
    const setup = pe.children.find((c) => c.attributes.name === 'Microsoft-Windows-Setup');
    assert.ok(setup, 'no Microsoft-Windows-Setup in windowsPE');
    const created = descendants(setup, 'CreatePartition').map((p) => textOf(p, 'Type'));
    const windowsPartition = Number(textOf(descendants(setup, 'InstallTo')[0] as XmlElement, 'PartitionID'));
    const modified = new Map(descendants(setup, 'ModifyPartition').map((m) => [Number(textOf(m, 'PartitionID')), m]));
    if (firmware === 'bios') {
      assert.deepEqual(created, ['Primary', 'Primary']);
      assert.equal(textOf(modified.get(1) as XmlElement, 'Active'), 'true', 'the MBR system partition is not active');
    } else {
      assert.deepEqual(created, ['EFI', 'MSR', 'Primary']);
      assert.equal(textOf(modified.get(1) as XmlElement, 'Format'), 'FAT32', 'the EFI system partition must be FAT32');
    }
    assert.equal(windowsPartition, created.length, 'Windows does not go to the last partition');
    assert.equal(textOf(modified.get(windowsPartition) as XmlElement, 'Letter'), 'C');
    // The build password is the user's to set, and the same in both places that need it.
    assert.deepEqual(
      descendants(root, 'Value')
        .map((v) => v.text.trim())
        .filter((v) => v.includes('PASSWORD')),
      ['KILN-BUILD-PASSWORD', 'KILN-BUILD-PASSWORD'],
    );
    assert.ok(
      descendants(root, 'CommandLine').some((c) => /winrm quickconfig/.test(c.text)),
      'the first logon does not turn WinRM on',
    );
  });
}

// A Packer build of images/packer/debian-kiln.pkr.hcl acted out inside a qemu guest, for the boot test: packer
// itself cannot run here, so a unit of the image (the driver) does what Packer's communicator would, in the
// template's own order: copy the file provisioner's upload where it goes, run each shell provisioner's script from
// the repo as its execute_command does (`env VARS sh -eux SCRIPT`, as root), and after the provisioner that
// expects a disconnect (the reboot) go on in the next boot. Each script's output and exit code go to the serial
// console; the first failure ends the build there, as it would end Packer's. After the last step the driver reports
// what the capture left (sshd's effective PasswordAuthentication, the sshd drop-ins, `kiln check --json`), hands the
// next boot to the image's probe unit and powers off: the disk is then the "captured" image.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { installProbeUnit, type ConsoleLine } from './qemu-boot';
import { readProvisioners } from './packer-template';

/** Where the driver keeps the scripts, the uploads and which boot of the build comes next, in the guest. */
const STATE = '/var/lib/kiln-packer-emulation';

/**
 * The execute_command the emulation follows: the Debian template's (the boot test checks the template still says so).
 */
export const EMULATED_EXECUTE_COMMAND = "sudo env {{ .Vars }} sh -eux '{{ .Path }}'";

export interface EmulatedStep {
  /** The script's name without .sh: what the console lines are tagged with. */
  name: string;
  script: string;
  env: string[];
  /** Uploads the file provisioners before it made: staged name → destination in the guest. */
  uploads: Array<{ staged: string; destination: string }>;
}

/** The build's steps in the two boots Packer runs them in: up to the provisioner that reboots, and the rest. */
export interface EmulatedBuild {
  boots: [EmulatedStep[], EmulatedStep[]];
}

/**
 * The template's provisioners as the driver's steps; SOURCES maps a file provisioner's `source` (e.g.
 * `var.kiln_binary`) to a host file.
 */
export function planBuild(
  template: string,
  sources: Record<string, string>,
): { build: EmulatedBuild; files: Record<string, string> } {
  const boots: [EmulatedStep[], EmulatedStep[]] = [[], []];
  const files: Record<string, string> = {};
  let uploads: EmulatedStep['uploads'] = [];
  let boot = 0;
  for (const p of readProvisioners(template)) {
    if (p.type === 'file') {
      const from = p.source === undefined ? undefined : sources[p.source];
      if (from === undefined || p.destination === undefined)
        throw new Error(`${template}: no host file given for the file provisioner of ${p.source ?? '(no source)'}`);
      const staged = `upload-${uploads.length}-${basename(p.destination)}`;
      files[staged] = from;
      uploads.push({ staged, destination: p.destination });
      continue;
    }
    if (p.type !== 'shell' || p.inline || p.scripts.length !== 1)
      throw new Error(`${template}: the emulation runs shell provisioners of one script each, not this ${p.type} one`);
    const script = p.scripts[0] as string;
    files[basename(script)] = script;
    if (boot > 1) throw new Error(`${template}: more than one provisioner expects a disconnect`);
    boots[boot]?.push({
      name: basename(script).replace(/\.sh$/, ''),
      script: basename(script),
      env: p.environmentVars,
      uploads,
    });
    uploads = [];
    if (p.expectDisconnect) boot++;
  }
  if (boot !== 1) throw new Error(`${template}: no provisioner reboots the build VM (expect_disconnect)`);
  return { build: { boots }, files };
}

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function stepLines(step: EmulatedStep): string[] {
  return [
    ...step.uploads.map((u) => `cp ${STATE}/${u.staged} ${quote(u.destination)}`),
    `run_step ${quote(step.name)} ${quote(step.script)}${step.env.map((e) => ` ${quote(e)}`).join('')}`,
  ];
}

/** The driver: which boot it is comes from STATE/boot, which it advances before a step that reboots. */
function driverScript(build: EmulatedBuild, probeUnit: string): string {
  const [first, second] = build.boots;
  return `#!/bin/sh
# The Packer build emulation's driver (test/helpers/packer-emulation.ts): not part of any image kiln ships.
S=${STATE}
say() { printf '%s\\n' "$*" > /dev/ttyS0; }
finish() { say "PACKER-END"; systemctl poweroff; exit 0; }
# As Packer: the script is uploaded to /tmp and run by the execute_command, here as root already.
run_step() {
  name=$1; script=$2; shift 2
  cp "$S/$script" "/tmp/packer-$script"
  env "$@" sh -eux "/tmp/packer-$script" > "$S/output-$name" 2>&1; rc=$?
  while IFS= read -r line; do say "PACKER-OUT|$name| $line"; done < "$S/output-$name"
  say "PACKER-RC $name $rc"
  [ $rc -eq 0 ] || finish
}
case "$(cat $S/boot 2>/dev/null)" in
'')
  say "PACKER-BOOT 1"
${first
  .slice(0, -1)
  .flatMap(stepLines)
  .map((l) => `  ${l}`)
  .join('\n')}
  echo 2 > $S/boot
${stepLines(first.at(-1) as EmulatedStep)
  .map((l) => `  ${l}`)
  .join('\n')}
  # The step rebooted the VM (qemu -no-reboot ends this boot); only a reboot that did not come gets here.
  sleep 300; say "PACKER-NO-REBOOT"; finish ;;
2)
  echo 3 > $S/boot
  say "PACKER-BOOT 2"
  say "PACKER-MACHINE-ID $(cat /etc/machine-id)"
${second
  .flatMap(stepLines)
  .map((l) => `  ${l}`)
  .join('\n')}
  say "PACKER-SSHD-PASSWORDAUTHENTICATION $(sshd -T 2>&1 | sed -n 's/^passwordauthentication //p')"
  say "PACKER-SSHD-DROPINS $(ls /etc/ssh/sshd_config.d | tr '\\n' ' ')"
  kiln check --json > $S/check.json; say "PACKER-CHECK-RC $?"
  base64 -w 600 $S/check.json | while IFS= read -r line; do say "PACKER-CHECK-JSON-B64 $line"; done
  # The build is over: the next boot of this disk is the captured image's, reported by the image's probe.
  systemctl enable ${probeUnit}.service
  systemctl disable kiln-packer-driver.service
  finish ;;
*)
  say "PACKER-DRIVER-RAN-AGAIN"; finish ;;
esac
`;
}

/**
 * Adds the emulation to ROOT: the template's scripts and the uploads under STATE, the driver unit enabled, and
 * the probe unit PROBE_UNIT (installed by the caller) disabled until the build is over.
 */
export function installPackerEmulation(
  root: string,
  template: string,
  sources: Record<string, string>,
  probeUnit: string,
): EmulatedBuild {
  const { build, files } = planBuild(template, sources);
  mkdirSync(join(root, STATE.slice(1)), { recursive: true });
  for (const [name, from] of Object.entries(files)) copyFileSync(from, join(root, STATE.slice(1), name));
  installProbeUnit(root, 'kiln-packer-driver', driverScript(build, probeUnit));
  rmSync(join(root, 'etc/systemd/system/multi-user.target.wants', `${probeUnit}.service`), { force: true });
  return build;
}

/** One step's outcome as the console reported it: its exit code (undefined when none came) and its output. */
export interface StepReport {
  rc: string | undefined;
  output: string;
}

/** The steps' reports on the console LINES, by step name. */
export function stepReports(lines: readonly ConsoleLine[]): Map<string, StepReport> {
  const out = new Map<string, StepReport>();
  const get = (name: string) => out.get(name) ?? (out.set(name, { rc: undefined, output: '' }).get(name) as StepReport);
  for (const { text } of lines) {
    const o = /(?<![A-Z-])PACKER-OUT\|([^|]+)\| ?(.*)$/.exec(text);
    if (o) get(o[1] as string).output += `${o[2]}\n`;
    const r = /(?<![A-Z-])PACKER-RC (\S+) (\d+)$/.exec(text);
    if (r) get(r[1] as string).rc = r[2];
  }
  return out;
}

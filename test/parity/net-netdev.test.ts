// kiln's networkd .netdev files (which cloud-init 22.4 does not write) checked against netplan's own generator:
// `netplan generate` in the Debian rootfs on the same v2 input must create the same devices with the same settings.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { rendererConfigFor } from '../../src/net/distro-renderer-configs';
import { parseNetworkInput } from '../../src/net/parse-network-config';
import { RENDERERS } from '../../src/net/renderers';
import { copyRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { loadCases } from '../net/fixture-cases';

type Ini = Record<string, Record<string, string>>;

/** A systemd unit file as {section: {key: value}}, booleans spelled one way. */
function parseIni(text: string): Ini {
  const out: Ini = {};
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^\[(.+)\]$/.exec(line);
    if (m) {
      section = m[1] as string;
      out[section] ??= {};
      continue;
    }
    const [k, ...v] = line.split('=');
    const value = v.join('=');
    (out[section] as Record<string, string>)[k as string] = value === 'true' ? 'yes' : value === 'false' ? 'no' : value;
  }
  return out;
}

test("kiln's .netdev files match what netplan generate makes from the same v2 input", (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs root, unshare, chroot and debootstrap for the Debian rootfs with netplan',
    )
  )
    return;
  // v2-bond-undeclared-members is a config netplan refuses (a bond member no entry declares) and cloud-init renders.
  const cases = loadCases().filter(
    (c) =>
      c.name !== 'v2-bond-undeclared-members' &&
      c.kind === 'yaml' &&
      /^\s*version:\s*2/m.test(readFileSync(c.input, 'utf8')) &&
      /bonds:|bridges:|vlans:/.test(readFileSync(c.input, 'utf8')),
  );
  assert.ok(cases.length > 0, 'a v2 fixture with bonds, bridges or VLANs');
  const root = copyRootfs(tempDir(t, 'kiln-net-netdev-'));
  for (const c of cases) {
    // One rootfs copy serves every case: netplan's inputs and outputs are cleared in between.
    rmSync(join(root, 'etc/netplan'), { recursive: true, force: true });
    rmSync(join(root, 'run/systemd'), { recursive: true, force: true });
    mkdirSync(join(root, 'etc/netplan'), { recursive: true });
    copyFileSync(c.input, join(root, 'etc/netplan/50-kiln-test.yaml'));
    const r = spawnSync(
      'unshare',
      ['--uts', '--ipc', '--mount', '--pid', '--net', '--fork', '--kill-child', 'chroot', root, 'netplan', 'generate'],
      { encoding: 'utf8' },
    );
    assert.equal(r.status, 0, r.stderr);
    const dir = join(root, 'run/systemd/network');
    const theirs = new Map(
      readdirSync(dir)
        .filter((f) => f.endsWith('.netdev'))
        .map((f) => [f.replace(/^10-netplan-|\.netdev$/g, ''), parseIni(readFileSync(join(dir, f), 'utf8'))]),
    );
    const ns = parseNetworkInput('yaml', c.load());
    const mine = new Map(
      RENDERERS.networkd
        .render(ns, rendererConfigFor('debian', 'networkd'))
        .filter((f) => f.path.endsWith('.netdev'))
        .map((f) => [f.path.replace(/^.*10-cloud-init-|\.netdev$/g, ''), parseIni(f.content)]),
    );
    assert.deepEqual([...mine.keys()].sort(), [...theirs.keys()].sort(), `${c.name}: the same virtual devices`);
    for (const [name, ini] of theirs) assert.deepEqual(mine.get(name), ini, `${c.name}: ${name}.netdev`);
  }
});

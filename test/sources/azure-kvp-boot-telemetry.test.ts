// Boot telemetry, system information and the log pushed to KVP as 22.4's Azure helpers write them (compared with 22.4's
// own functions in the Debian rootfs), and the Azure source's activate pushing the log.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { test, type TestContext } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { RunOpts, RunResult } from '../../src/platform/platform';
import { azureSource } from '../../src/sources/azure/azure';
import { KvpTelemetry, readKvpRecords } from '../../src/sources/azure/kvp';
import {
  LOG_PUSHED_TO_KVP_INDEX_FILE,
  pushLogToKvp,
  reportBootTelemetry,
  reportSystemInfo,
  utcIsoMicros,
} from '../../src/sources/azure/kvp-boot-telemetry';
import { Logger } from '../../src/util/log';
import { runCloudInitPython } from '../helpers/cloud-init-python';
import { ensureDebianRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

const TELEMETRY = { reporting: { telemetry: { type: 'hyperv' } } };
const POOL = 'var/lib/hyperv/.kvp_pool_1';
const NOW_MS = 1_764_000_000_250;
const UPTIME = '31.41';
const USERSPACE_US = 2_345_678;
const ACTIVATION_US = 9_876_543;
const DMESG =
  '[    0.000000] Linux version 6.1.0 (debian-kernel@lists.debian.org)\n[    1.234567] hv_vmbus: registering driver hv_netvsc\n';

/** A sandbox platform whose systemctl and dmesg answer as on a Hyper-V guest (the sandbox root has neither). */
class GuestPlatform extends LinuxPlatform {
  readonly runs: string[] = [];
  override async run(cmd: string[] | string, _opts: RunOpts = {}): Promise<RunResult> {
    const line = Array.isArray(cmd) ? cmd.join(' ') : cmd;
    this.runs.push(line);
    if (line === 'systemctl show -p UserspaceTimestampMonotonic')
      return { code: 0, stdout: `UserspaceTimestampMonotonic=${USERSPACE_US}\n`, stderr: '' };
    if (line === 'systemctl show cloud-init-local -p InactiveExitTimestampMonotonic')
      return { code: 0, stdout: `InactiveExitTimestampMonotonic=${ACTIVATION_US}\n`, stderr: '' };
    if (line === 'dmesg') return { code: 0, stdout: DMESG, stderr: '' };
    throw new Error(`unexpected command ${line}`);
  }
}

function guestRoot(t: TestContext): string {
  const root = tempDir(t);
  for (const d of ['proc', 'run/systemd/system', 'run/cloud-init', 'var/lib/hyperv', 'var/log', 'etc'])
    mkdirSync(join(root, d), { recursive: true });
  writeFileSync(join(root, 'proc/uptime'), `${UPTIME} 99.00\n`);
  return root;
}

interface Reported {
  type: string;
  name: string;
  msg: string;
}

/**
 * The events in a pool, a split one joined again: its slices cut the JSON-escaped text, so they are joined raw and
 * unescaped once.
 */
function eventsIn(pool: Uint8Array): Reported[] {
  const out = new Map<string, { type: string; name: string; raw: string }>();
  for (const r of readKvpRecords(pool)) {
    const parts = r.key.split('|');
    const key = parts.slice(0, 5).join('|');
    const raw = /"msg":"(.*)"\}$/s.exec(r.value)?.[1] ?? '';
    const seen = out.get(key);
    if (seen) seen.raw += raw;
    else out.set(key, { type: parts[2] ?? '', name: parts[3] ?? '', raw });
  }
  return [...out.values()].map((e) => ({ type: e.type, name: e.name, msg: JSON.parse(`"${e.raw}"`) as string }));
}

/** A compressed event's payload: the JSON around it with the data left out, and the data inflated. */
function unpack(msg: string): { shape: string; lines: string[]; content: string } {
  const parsed = JSON.parse(msg) as { encoding: string; data: string };
  return {
    shape: msg.replace(JSON.stringify(parsed.data), '"…"'),
    lines: parsed.data.split('\n'),
    content: inflateSync(Buffer.from(parsed.data, 'base64')).toString('utf8'),
  };
}

test("utcIsoMicros is Python's utcfromtimestamp(t).isoformat() + 'Z'", () => {
  assert.equal(utcIsoMicros(1_764_000_000), '2025-11-24T16:00:00Z');
  assert.equal(utcIsoMicros(1_764_000_000.5), '2025-11-24T16:00:00.500000Z');
  assert.equal(utcIsoMicros(1_764_000_000 + 0.4e-6), '2025-11-24T16:00:00Z');
  assert.equal(utcIsoMicros(1_764_000_002 - 0.4e-6), '2025-11-24T16:00:02Z');
});

test('boot telemetry needs systemd; the log push takes what is new since the last push this boot, at most 512000 bytes, then dmesg; failures are diagnostics', async (t) => {
  const root = guestRoot(t);
  const log = new Logger().for('test');
  const platform = new GuestPlatform({ root, log });
  const kvp = await KvpTelemetry.fromConfig(platform, TELEMETRY, log, () => NOW_MS);
  assert.ok(kvp);
  await reportBootTelemetry(platform, kvp, NOW_MS);
  const big = 'x'.repeat(600_000);
  writeFileSync(join(root, 'var/log/cloud-init.log'), big);
  await pushLogToKvp(platform, kvp, log);
  assert.equal(readFileSync(join(root, LOG_PUSHED_TO_KVP_INDEX_FILE), 'utf8'), '600000');
  writeFileSync(join(root, 'var/log/cloud-init.log'), `${big}second part\n`);
  await pushLogToKvp(platform, kvp, log, '/var/log/cloud-init.log');
  writeFileSync(join(root, LOG_PUSHED_TO_KVP_INDEX_FILE), 'garbage');
  await pushLogToKvp(platform, kvp, log, '/var/log/missing.log');
  await kvp.flush();
  const events = eventsIn(readFileSync(join(root, POOL)));
  assert.deepEqual(events[0], {
    type: 'boot-telemetry',
    name: 'boot-telemetry',
    msg: `kernel_start=${utcIsoMicros(NOW_MS / 1000 - 31.41)} user_start=${utcIsoMicros(NOW_MS / 1000 - 31.41 + 2.345678)} cloudinit_activation=${utcIsoMicros(NOW_MS / 1000 - 31.41 + 9.876543)}`,
  });
  assert.deepEqual(
    events.slice(1).map((e) => (e.type === 'compressed' ? `${e.name}: ${unpack(e.msg).content.length}` : e.msg)),
    [
      'Dumping last 512000 bytes of cloud-init.log file to KVP starting from index: 88000',
      'cloud-init.log: 512000',
      `dmesg: ${DMESG.length}`,
      'Dumping last 12 bytes of cloud-init.log file to KVP starting from index: 600000',
      'cloud-init.log: 12',
      `dmesg: ${DMESG.length}`,
      `Invalid value in LOG_PUSHED_TO_KVP_INDEX_FILE: ValueError("invalid literal for int() with base 10: 'garbage'").`,
      events[8]?.msg ?? '',
      `dmesg: ${DMESG.length}`,
    ],
  );
  assert.match(events[8]?.msg ?? '', /^Exception when dumping log file: .*missing\.log/);
  // Without /run/systemd/system (a non-systemd distro) there is no boot telemetry, as in cloud-init.
  const bare = tempDir(t);
  await assert.rejects(reportBootTelemetry(new GuestPlatform({ root: bare, log }), kvp), /distro not using systemd/);
});

test("the events are 22.4's get_boot_telemetry, get_system_info and push_log_to_kvp for the same inputs (run in the Debian rootfs)", async (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs root, unshare, chroot and debootstrap for the Debian cloud-init rootfs',
    )
  )
    return;
  const rootfs = ensureDebianRootfs();
  const root = guestRoot(t);
  writeFileSync(join(root, 'etc/os-release'), readFileSync(join(rootfs, 'etc/os-release')));
  const logText = `${'2026-01-01 00:00:00,000 - util.py[DEBUG]: line é\n'.repeat(12_000)}`;
  const more = 'the second push\n';
  const log = new Logger().for('test');
  const platform = new GuestPlatform({ root, log });
  const kvp = await KvpTelemetry.fromConfig(platform, TELEMETRY, log, () => NOW_MS);
  assert.ok(kvp);
  await reportBootTelemetry(platform, kvp, NOW_MS);
  await reportSystemInfo(platform, kvp);
  writeFileSync(join(root, 'var/log/cloud-init.log'), logText);
  await pushLogToKvp(platform, kvp, log);
  writeFileSync(join(root, 'var/log/cloud-init.log'), logText + more);
  await pushLogToKvp(platform, kvp, log);
  await kvp.flush();
  const ours = eventsIn(readFileSync(join(root, POOL)));

  const script = [
    'import json, os, sys',
    'from cloudinit.sources.helpers import azure',
    'from cloudinit.reporting import events',
    'a = json.loads(sys.argv[1])',
    'out = []',
    'events.report_event = lambda evt, excluded_handler_types=None: out.append({"type": evt.event_type, "name": evt.name, "msg": evt.description})',
    'azure.time = lambda: a["now"]',
    'azure.util.uptime = lambda: a["uptime"]',
    'azure.distros.uses_systemd = lambda: True',
    'def subp(args, **kw):',
    '    line = " ".join(args)',
    '    if line == "dmesg": return (a["dmesg"].encode(), b"")',
    '    return (a["systemctl"][line], "")',
    'azure.subp.subp = subp',
    'azure.LOG_PUSHED_TO_KVP_INDEX_FILE = "/tmp/index"',
    'azure.get_boot_telemetry()',
    'azure.get_system_info()',
    'open("/tmp/cloud-init.log", "wb").write(a["log"].encode())',
    'azure.push_log_to_kvp("/tmp/cloud-init.log")',
    'open("/tmp/cloud-init.log", "ab").write(a["more"].encode())',
    'azure.push_log_to_kvp("/tmp/cloud-init.log")',
    'sys.stdout.write(json.dumps([e for e in out if e["type"] not in ("start", "finish")]))',
  ].join('\n');
  const input = {
    now: NOW_MS / 1000,
    uptime: UPTIME,
    dmesg: DMESG,
    log: logText,
    more,
    systemctl: {
      'systemctl show -p UserspaceTimestampMonotonic': `UserspaceTimestampMonotonic=${USERSPACE_US}\n`,
      'systemctl show cloud-init-local -p InactiveExitTimestampMonotonic': `InactiveExitTimestampMonotonic=${ACTIVATION_US}\n`,
    },
  };
  const theirs = JSON.parse(runCloudInitPython(rootfs, script, JSON.stringify(input))) as Reported[];
  // Node's zlib and Python's compress the same bytes differently (both valid): the payload is compared inflated,
  // its JSON and base64 line layout as text.
  const comparable = (events: Reported[]) =>
    events.map((e) => {
      if (e.type === 'compressed') {
        const u = unpack(e.msg);
        return {
          ...e,
          msg: u.shape,
          lineWidths: [...new Set(u.lines.slice(0, -2).map((l) => l.length))],
          last: u.lines.at(-1),
          content: u.content,
        };
      }
      if (e.type === 'system-info')
        return {
          ...e,
          msg: e.msg
            .replace(/cloudinit_version=[^,]*/, 'cloudinit_version=V')
            .replace(/python_version=.*/, 'python_version=P'),
        };
      return e;
    });
  assert.deepEqual(comparable(ours), comparable(theirs));
  assert.deepEqual(
    ours.map((e) => e.type),
    [
      'boot-telemetry',
      'system-info',
      'diagnostic',
      'compressed',
      'compressed',
      'diagnostic',
      'compressed',
      'compressed',
    ],
  );
});

test("the Azure source's activate pushes the log to KVP with a hyperv handler, and does nothing without one", async (t) => {
  const log = new Logger().for('test');
  for (const [config, expected] of [
    [TELEMETRY, ['diagnostic', 'compressed', 'compressed']],
    [{}, []],
  ] as const) {
    const root = guestRoot(t);
    writeFileSync(join(root, 'var/log/cloud-init.log'), 'init stage log\n');
    const platform = new GuestPlatform({ root, log });
    await azureSource.activate?.(
      { platform, log, distroName: 'debian', isNewInstance: true, rerunModule: async () => {}, systemConfig: config },
      { instanceId: 'i', cloudName: 'azure', platform: 'azure', subplatform: 'x', publicKeys: [], metadata: {} },
    );
    let events: Reported[] = [];
    try {
      events = eventsIn(readFileSync(join(root, POOL)));
    } catch {
      events = [];
    }
    assert.deepEqual(
      events.map((e) => e.type),
      expected,
    );
    if (expected.length) assert.equal(unpack(events[1]?.msg ?? '').content, 'init stage log\n');
    else assert.deepEqual(platform.runs, [], 'no dmesg without a handler');
  }
});

// The boot bench's reading of a console: the kernel's start from printk timestamps, the stage units' systemd
// timestamps turned into seconds since qemu start, and clear errors when the console lacks what it needs.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import {
  guestClock,
  kernelClockStart,
  parseBootTimeline,
  stagesSeconds,
  TimelineError,
} from '../helpers/boot-timeline';
import type { ConsoleLine } from '../helpers/qemu-boot';

/** A console as a boot writes it: early kernel lines arrive late in one burst, later ones as they are logged. */
function console_(): ConsoleLine[] {
  return [
    { at: 2.9, text: 'SeaBIOS (version 1.16.2-debian-1.16.2-1)' },
    { at: 4.0, text: '[    0.000000] Linux version 6.1.0-50-amd64' },
    { at: 4.0, text: '[    0.812345] printk: console [ttyS0] enabled' },
    { at: 4.1, text: '[    1.500000] Run /init as init process' },
    { at: 6.25, text: '[    3.750000] systemd[1]: systemd 252.39-1~deb12u1 running in system mode' },
    {
      at: 13.0,
      text: "[   10.412345] cloud-init[234]: Cloud-init v. 22.4.2 running 'init-local' at Thu, 26 Nov 2026 09:06:47 +0000. Up 10.40 seconds.",
    },
    {
      at: 16.0,
      text: "[   13.500000] cloud-init[396]: Cloud-init v. 25.1.4 running 'init' at Thu, 26 Nov 2026 09:07:03 +0000. Up 13.25 seconds.",
    },
    { at: 20.0, text: '[  OK  ] Finished cloud-final.service' },
    { at: 20.1, text: 'TIMELINE-USERSPACE 3700000' },
    { at: 20.1, text: 'TIMELINE-UNIT cloud-init-local.service 10000000 12500000 success' },
    // Kernel output may land before a probe line on the same console line.
    { at: 20.1, text: '[   17.6] random: crng init done TIMELINE-UNIT cloud-init.service 13000000 15000000 success' },
    { at: 20.1, text: 'TIMELINE-UNIT cloud-config.service 15500000 16000000 success' },
    { at: 20.1, text: 'TIMELINE-UNIT cloud-final.service 16100000 17400000 success' },
  ];
}

test('the kernel started at the smallest arrival-minus-printk time: the lines that were not held back', () => {
  // 6.25 - 3.75 = 2.5 beats 4.0 - 0.0 (the buffered burst).
  assert.equal(kernelClockStart(console_()), 2.5);
  assert.equal(kernelClockStart([{ at: 1, text: 'no kernel timestamps here' }]), undefined);
});

test('a guest clock that lost seconds in early boot is placed on the host clock by the kernel lines near each time', () => {
  // As seen under TCG on a loaded host: early lines put the kernel's start at 10.5 s, every later one at 13.4 s.
  const lines: ConsoleLine[] = [
    { at: 10.5, text: '[    0.000000] Linux version 6.1.0-50-amd64' },
    { at: 15.5, text: '[    5.000000] clocksource: Switched to clocksource tsc' },
    { at: 53.4, text: '[   40.000000] systemd[1]: Started systemd-udevd.service' },
    { at: 74.9, text: "[   61.500000] cloud-init[234]: Cloud-init v. 25.1.4 running 'init-local'" },
    { at: 113.5, text: '[  100.000000] a line that arrived 0.1 s late' },
  ];
  const clock = guestClock(lines);
  assert.ok(clock);
  assert.equal(clock(0), 10.5);
  assert.ok(Math.abs(clock(60) - 73.4) < 1e-9);
  assert.ok(Math.abs(clock(100) - 113.5) < 1e-9);
  // Far from every line: the nearest few, not the early ones.
  assert.ok(Math.abs(clock(300) - 313.4) < 1e-9);
  assert.equal(guestClock([{ at: 1, text: 'no kernel timestamps' }]), undefined);
});

test('stage units’ monotonic timestamps become seconds since qemu start', () => {
  const t = parseBootTimeline(console_());
  assert.equal(t.kernelStart, 2.5);
  assert.equal(t.userspaceStart, 6.2);
  assert.deepEqual(
    t.stages.map((s) => [s.stage, s.start, s.end, s.result]),
    [
      ['init-local', 12.5, 15, 'success'],
      ['init', 15.5, 17.5, 'success'],
      ['modules-config', 18, 18.5, 'success'],
      ['modules-final', 18.6, 19.9, 'success'],
    ],
  );
  assert.equal(t.finalEnd, 19.9);
  // The banners' "Up" seconds, where the console has them ('init' is not taken for 'init-local').
  assert.deepEqual(
    t.stages.map((s) => s.banner),
    [12.9, 15.75, undefined, undefined],
  );
  assert.ok(Math.abs(stagesSeconds(t) - (2.5 + 2 + 0.5 + 1.3)) < 1e-9);
});

test("the network stage is read from cloud-init-network.service (cloud-init 25.1, kiln) and from cloud-init.service where only that one ran (Debian 12's 22.4)", () => {
  // The probe asks about both names; systemd answers zeros for a unit that does not exist.
  const renamed = console_().flatMap((l) =>
    l.text.includes('TIMELINE-UNIT cloud-init.service')
      ? [
          { ...l, text: 'TIMELINE-UNIT cloud-init-network.service 13000000 15000000 success' },
          { ...l, text: 'TIMELINE-UNIT cloud-init.service 0 0 ' },
        ]
      : [l],
  );
  assert.deepEqual(parseBootTimeline(renamed).stages[1], parseBootTimeline(console_()).stages[1]);
  const both = [...console_(), { at: 20.1, text: 'TIMELINE-UNIT cloud-init-network.service 0 0 ' }];
  assert.equal(parseBootTimeline(both).stages[1]?.start, 15.5);
});

test('a stage that never finished, a missing probe or no kernel timestamps is a TimelineError saying which', () => {
  const unfinished = console_().map((l) =>
    l.text.startsWith('TIMELINE-UNIT cloud-final')
      ? { ...l, text: 'TIMELINE-UNIT cloud-final.service 16100000 0 ' }
      : l,
  );
  assert.throws(
    () => parseBootTimeline(unfinished),
    (e: unknown) =>
      e instanceof TimelineError && /cloud-final\.service \(modules-final\) did not run to the end/.test(e.message),
  );
  const noProbe = console_().filter((l) => !l.text.includes('TIMELINE-'));
  assert.throws(
    () => parseBootTimeline(noProbe),
    (e: unknown) => e instanceof TimelineError && /no TIMELINE-USERSPACE/.test(e.message),
  );
  const noConfig = console_().filter((l) => !l.text.includes('cloud-config.service'));
  assert.throws(
    () => parseBootTimeline(noConfig),
    (e: unknown) => e instanceof TimelineError && /no TIMELINE-UNIT line for cloud-config\.service/.test(e.message),
  );
  const noKernel = console_().filter((l) => !l.text.startsWith('['));
  assert.throws(
    () => parseBootTimeline(noKernel),
    (e: unknown) => e instanceof TimelineError && /printk\.time=1/.test(e.message),
  );
});

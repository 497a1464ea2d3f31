// The boot bench's reading of init-local's own log: the console's STAGELOG lines, and the longest pauses between them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commandSeconds, loggedSpan, longestGaps, stageLogLines, stageLogParts } from '../helpers/stage-log-gaps';

const console = [
  {
    at: 30.1,
    text: "STAGELOG 2026-12-07 10:00:01,000 - main.py[DEBUG]: Cloud-init v. 25.1.4 running 'init-local' at …",
  },
  { at: 30.2, text: '[   31.000000] some kernel line' },
  { at: 30.3, text: 'STAGELOG 2026-12-07 10:00:01,250 - util.py[DEBUG]: Reading from /proc/cmdline' },
  { at: 30.4, text: 'STAGELOG   a continuation line without a stamp' },
  { at: 30.5, text: 'STAGELOG 2026-12-07 10:00:03,750 - __init__.py[DEBUG]: Looking for data source in: [NoCloud]' },
  { at: 30.6, text: 'STAGELOG 2026-12-07 10:00:04,000 - handlers.py[DEBUG]: finish: init-local: SUCCESS' },
];

test('stageLogLines keeps the tagged lines, untagged, in order', () => {
  const log = stageLogLines(console);
  assert.equal(log.length, 5);
  assert.match(log[0] as string, /^2026-12-07 10:00:01,000 - main\.py/);
  assert.equal(log[2], '  a continuation line without a stamp');
});

test('longestGaps names the line before each pause, longest first, and skips lines without a stamp', () => {
  const gaps = longestGaps(stageLogLines(console), 2);
  assert.deepEqual(
    gaps.map((g) => [g.seconds, g.before]),
    [
      [2.5, 'util.py[DEBUG]: Reading from /proc/cmdline'],
      [0.25, "main.py[DEBUG]: Cloud-init v. 25.1.4 running 'init-local' at …"],
    ],
  );
  assert.equal(loggedSpan(stageLogLines(console)), 3);
});

test('stageLogParts cuts the log into stages, banner to finish event, with the time after each `Running command`', () => {
  const log = [
    "2026-12-07 10:00:01,000 - main.py[DEBUG]: Cloud-init v. 25.1.4 running 'init-local' at …",
    "2026-12-07 10:00:01,500 - subp.py[DEBUG]: Running command ['blkid'] with allowed return codes [0]",
    '2026-12-07 10:00:02,250 - util.py[DEBUG]: Reading from /proc/cmdline',
    '2026-12-07 10:00:03,000 - handlers.py[DEBUG]: finish: init-local: SUCCESS: searching for local datasources',
    "2026-12-07 10:00:09,000 - main.py[DEBUG]: Cloud-init v. 25.1.4 running 'init' at …",
    '2026-12-07 10:00:09,100 - handlers.py[DEBUG]: finish: init-network/config-ssh: SUCCESS',
    '2026-12-07 10:00:10,000 - handlers.py[DEBUG]: finish: init-network: SUCCESS: searching for network datasources',
    "2026-12-07 10:00:11,000 - main.py[DEBUG]: Cloud-init v. 25.1.4 running 'modules:final' at …",
    "2026-12-07 10:00:11,200 - platform.ts[DEBUG]: Running command ['ssh-keygen', '-l']",
    '2026-12-07 10:00:12,200 - platform.ts[DEBUG]: Running command runcmd',
    '  a continuation without a stamp',
    '2026-12-07 10:00:12,700 - handlers.py[DEBUG]: finish: modules-final: SUCCESS: running modules for final',
  ];
  const parts = stageLogParts(log);
  assert.deepEqual(
    parts.map((p) => [p.stage, Number(p.span.toFixed(3)), Number(p.commands.toFixed(3)), p.lines.length]),
    [
      ['init-local', 2, 0.75, 4],
      ['init', 1, 0, 3],
      ['modules-final', 1.7, 1.5, 5],
    ],
    'modules-config, whose banner is missing, is left out',
  );
  assert.equal(commandSeconds([]), 0);
});

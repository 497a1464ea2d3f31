// The boot bench's reading of init-local's own log: the console's STAGELOG lines, and the longest pauses between them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loggedSpan, longestGaps, stageLogLines } from '../helpers/stage-log-gaps';

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

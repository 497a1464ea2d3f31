// cloud-init's log read back as boot events, in each of the line formats cloud-init's analyze reads.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  parseCloudInitLogEvents,
  parseCloudInitLogLine,
  parseLogTimestamp,
} from '../../src/runner/cloud-init-log-events';

test('times: cloud-init.log asctime, syslog and journal (the given year), ISO 8601; anything else is no time', () => {
  assert.equal(parseLogTimestamp('2026-11-26 09:07:03,250', 2020), Date.UTC(2026, 10, 26, 9, 7, 3) / 1000 + 0.25);
  assert.equal(parseLogTimestamp('Nov 26 09:07:03', 2026), Date.UTC(2026, 10, 26, 9, 7, 3) / 1000);
  assert.equal(parseLogTimestamp('Nov 03 06:51:06.074410', 2026), Date.UTC(2026, 10, 3, 6, 51, 6) / 1000 + 0.07441);
  assert.equal(parseLogTimestamp('2026-11-26T09:07:03.5+01:00', 2020), Date.UTC(2026, 10, 26, 8, 7, 3) / 1000 + 0.5);
  assert.equal(parseLogTimestamp('yesterday', 2026), undefined);
  assert.equal(parseLogTimestamp('Foo 26 09:07:03', 2026), undefined);
});

test('a stage banner starts its stage (init is init-network); start and finish lines carry name, description and result', () => {
  const t = Date.UTC(2026, 10, 26, 9, 7, 3) / 1000;
  assert.deepEqual(
    parseCloudInitLogLine(
      "2026-11-26 09:07:03,000 - util.py[DEBUG]: Cloud-init v. 22.4.2 running 'init-local' at Thu, 26 Nov 2026 09:07:03 +0000. Up 4.10 seconds.",
      2026,
    ),
    {
      name: 'init-local',
      description: 'starting search for local datasources',
      event_type: 'start',
      origin: 'cloudinit',
      timestamp: t,
    },
  );
  assert.equal(
    parseCloudInitLogLine(
      "2026-11-26 09:07:03,000 - util.py[DEBUG]: Cloud-init v. 22.4.2 running 'init' at Thu, 26 Nov 2026 09:07:03 +0000. Up 9 seconds.",
      2026,
    )?.name,
    'init-network',
  );
  assert.equal(
    parseCloudInitLogLine(
      "2026-11-26 09:07:03,000 - util.py[DEBUG]: Cloud-init v. 22.4.2 running 'modules:final' at Thu, 26 Nov 2026 09:07:03 +0000. Up 12 seconds.",
      2026,
    )?.name,
    'modules-final',
  );
  // The "finished at" banner starts nothing.
  assert.equal(
    parseCloudInitLogLine(
      '2026-11-26 09:07:03,000 - util.py[WARNING]: Cloud-init v. 22.4.2 finished at Thu, 26 Nov 2026 09:07:03 +0000. Datasource DataSourceNoCloud.  Up 13 seconds',
      2026,
    ),
    undefined,
  );
  assert.deepEqual(
    parseCloudInitLogLine(
      '2026-11-26 09:07:03,000 - handlers.py[DEBUG]: start: init-local/check-cache: attempting to read from cache [check]',
      2026,
    ),
    {
      name: 'init-local/check-cache',
      description: 'attempting to read from cache [check]',
      event_type: 'start',
      origin: 'cloudinit',
      timestamp: t,
    },
  );
  assert.deepEqual(
    parseCloudInitLogLine(
      '2026-11-26 09:07:03,000 - handlers.py[DEBUG]: finish: modules-config/config-locale: SUCCESS: config-locale ran successfully',
      2026,
    ),
    {
      name: 'modules-config/config-locale',
      description: 'config-locale ran successfully',
      event_type: 'finish',
      origin: 'cloudinit',
      timestamp: t,
      result: 'SUCCESS',
    },
  );
});

test("syslog ([CLOUDINIT] tag, a host name), journal and Amazon Linux's lines; lines that are no event are skipped", () => {
  const text = [
    'Nov 26 09:07:03 vm1 [CLOUDINIT] handlers.py[DEBUG]: start: init-network/search-NoCloud: searching for network data from DataSourceNoCloud',
    'Nov 26 09:07:04.500000 vm1 cloud-init[212]: [CLOUDINIT] handlers.py[DEBUG]: finish: init-network/search-NoCloud: FAIL: no network data found',
    // A journal line without the [CLOUDINIT] tag reads as Amazon Linux's, whose time then holds the host name:
    // cloud-init skips it too.
    'Nov 26 09:07:04.600000 vm1 cloud-init[212]: handlers.py[DEBUG]: start: init-network/skipped: not read',
    'Nov 26 09:07:05 cloud-init[2673]: handlers.py[DEBUG]: start: init-network/activate-datasource: activating datasource',
    '2026-11-26 09:07:06,000 - util.py[DEBUG]: Reading from /etc/hostname (quiet=False)',
    'no separator here: start: x',
  ].join('\n');
  const events = parseCloudInitLogEvents(text, 2026);
  assert.deepEqual(
    events.map((e) => [e.event_type, e.name, e.timestamp - Date.UTC(2026, 10, 26, 9, 7, 0) / 1000, e.result]),
    [
      ['start', 'init-network/search-NoCloud', 3, undefined],
      ['finish', 'init-network/search-NoCloud', 4.5, 'FAIL'],
      ['start', 'init-network/activate-datasource', 5, undefined],
    ],
  );
});

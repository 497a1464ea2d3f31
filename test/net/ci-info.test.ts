// The ci-info tables: kiln's formatting of captured `ip` output against what cloud-init 22.4 printed from the same.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { networkDebugInfo } from '../../src/net/ci-info/debug-info';
import { pyFormatCenter, pyStrCenter } from '../../src/net/ci-info/python-text';
import { Logger } from '../../src/util/log';
import { REPO } from '../helpers/repo';
import { recordingRoot } from './activate/recording-platform';

const FIXTURE = join(REPO, 'test', 'fixtures', 'ci-info', 'veth-pair');
const read = (f: string) => readFileSync(join(FIXTURE, f), 'utf8');

function ipAnswers(addr: string, v4: string, v6: string | { code: number }) {
  return (argv: string[]) => {
    const cmd = argv.join(' ');
    if (cmd === 'ip --json addr') return { stdout: addr };
    if (cmd === 'ip -o route list') return { stdout: v4 };
    if (cmd === 'ip --oneline -6 route list table all') return typeof v6 === 'string' ? { stdout: v6 } : v6;
    return { code: 127, stderr: `unexpected command ${cmd}` };
  };
}

test("Python's two centrings: str.center's odd space goes left only when padding and width are odd; format's goes right", () => {
  assert.equal(pyStrCenter('True', 6), ' True ');
  assert.equal(pyStrCenter('eth0', 7), '  eth0 ', 'marg 3, width 7: both odd, the extra space on the left');
  assert.equal(pyStrCenter('eth', 6), ' eth  ', 'marg 3, width 6 even: the extra space on the right');
  assert.equal(pyFormatCenter('Route', '+', 10), '++Route+++');
});

test('the device and route tables match cloud-init 22.4 byte for byte on the same ip output', async (t) => {
  const p = recordingRoot(
    t,
    ['bin/ip'],
    ipAnswers(read('ip-json-addr.json'), read('ip-route.txt'), read('ip6-route.txt')),
  );
  const got = await networkDebugInfo(p, new Logger().for('netinfo.py'));
  assert.equal(`${got}\n`, read('expected.txt'));
  assert.deepEqual(p.commands, ['ip --json addr', 'ip -o route list', 'ip --oneline -6 route list table all']);
});

test('a failing IPv6 route listing leaves the IPv6 table out, as cloud-init; no ip at all prints empty ci-info lines', async (t) => {
  const p = recordingRoot(t, ['sbin/ip'], ipAnswers(read('ip-json-addr.json'), read('ip-route.txt'), { code: 2 }));
  const got = await networkDebugInfo(p, new Logger().for('netinfo.py'));
  assert.ok(got.includes('Route IPv4 info') && !got.includes('Route IPv6 info'));
  const none = recordingRoot(t, []);
  assert.equal(await networkDebugInfo(none, new Logger().for('netinfo.py')), 'ci-info: \nci-info: ');
  assert.deepEqual(none.commands, []);
});

test('a route the table cannot show (IPv6 default without a gateway) is one failure line, where 22.4 crashes the stage', async (t) => {
  const p = recordingRoot(t, ['bin/ip'], ipAnswers('[]', '', 'default dev eth0 metric 1024 linkdown pref medium\n'));
  const got = await networkDebugInfo(p, new Logger().for('netinfo.py'));
  assert.equal(got, `ci-info: \nci-info: ${pyFormatCenter("Route info failed ('gateway')", '!', 80)}`);
  const bad = recordingRoot(t, ['bin/ip'], ipAnswers('not json', '', ''));
  assert.match(
    await networkDebugInfo(bad, new Logger().for('netinfo.py')),
    /^ci-info: !*Net device info failed \('ip --json addr' printed something that is not JSON/,
  );
});

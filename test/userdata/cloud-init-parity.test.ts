// The corpus through Debian 13's cloud-init 25.1 (UserDataProcessor and its cloud-config handler): same parts and
// config.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { processUserData } from '../../src/userdata/process-user-data';
import { runCloudInitPython } from '../helpers/cloud-init-python';
import { ensureDebianRootfs } from '../helpers/debian-rootfs';
import { FIXTURES } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';

const ROOT = join(FIXTURES, 'userdata');

/** Cases where kiln deliberately differs from cloud-init, and why. */
const DIFFERENT: Record<string, string> = {
  'truncated-gzip-whole': 'cloud-init turns a corrupt gzip into a text part; kiln reports the corruption',
  'truncated-gzip-part':
    'cloud-init 25.1 stops processing the whole user data with an error; kiln reports the part and goes on',
  'bad-base64': "Python's email module decodes bad base64 leniently; kiln reports the part",
  'charset-latin1': 'cloud-init 25.1 ends with an empty config for the iso-8859-1 part; kiln decodes it by its charset',
};

const SCRIPT = `
import sys, json, base64, tempfile, importlib.util, logging
logging.disable(logging.CRITICAL)
from cloudinit import user_data as ud, helpers, util, handlers
from cloudinit.handlers.cloud_config import CloudConfigPartHandler
out = []
for b in json.loads(sys.argv[1]):
    tmp = tempfile.mkdtemp()
    paths = helpers.Paths({"cloud_dir": tmp, "run_dir": tmp})
    msg = ud.UserDataProcessor(paths).process(base64.b64decode(b))
    h = CloudConfigPartHandler(paths)
    h.handle_part(None, handlers.CONTENT_START, None, None, None, None)
    parts = []
    for part in msg.walk():
        if part.is_multipart():
            continue
        ctype, fn = part.get_content_type(), part.get_filename()
        parts.append([ctype, fn])
        if ctype in ("text/cloud-config", "text/cloud-config-jsonp"):
            h.handle_part(None, ctype, fn, util.fully_decoded_payload(part), None, dict(part))
    out.append({"parts": parts, "cfg": h.cloud_buf or {}})
json.dump(out, sys.stdout)
`;

interface CaseSpec {
  mode?: string;
  inputs: Record<string, string | { file: string; gzip?: boolean; truncate?: number }>;
  serve?: unknown;
  instanceData?: string;
  launchIndex?: number;
}

function candidates(): Array<{ name: string; data: Buffer }> {
  const out: Array<{ name: string; data: Buffer }> = [];
  for (const name of readdirSync(ROOT).sort()) {
    const file = join(ROOT, name, 'case.json');
    if (!existsSync(file) || DIFFERENT[name]) continue;
    const spec = JSON.parse(readFileSync(file, 'utf8')) as CaseSpec;
    if (spec.mode === 'cloudbase-init' || spec.serve || spec.instanceData || spec.launchIndex !== undefined) continue;
    const keys = Object.keys(spec.inputs);
    if (keys.length !== 1 || keys[0] !== 'userData') continue;
    const input = spec.inputs.userData as string | { file: string; gzip?: boolean; truncate?: number };
    const s = typeof input === 'string' ? { file: input } : input;
    let data = readFileSync(join(ROOT, name, s.file));
    if (s.gzip) data = gzipSync(data);
    if (s.truncate !== undefined) data = data.subarray(0, s.truncate);
    out.push({ name, data });
  }
  return out;
}

test('corpus parity with cloud-init 25.1: parts (type, name) and merged cloud-config', async (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs root, chroot and debootstrap for the Debian rootfs',
    )
  )
    return;
  const root = ensureDebianRootfs('trixie');
  const cases = candidates();
  assert.ok(cases.length >= 15, `only ${cases.length} comparable cases`);
  // The cached rootfs itself, with a private /tmp for the processor's temporary folders (nothing left in the cache).
  const stdout = runCloudInitPython(root, SCRIPT, JSON.stringify(cases.map((c) => c.data.toString('base64'))));
  const expected = JSON.parse(stdout) as Array<{ parts: Array<[string, string]>; cfg: unknown }>;
  for (const [i, c] of cases.entries()) {
    const ours = await processUserData({ userData: c.data });
    const exp = expected[i] as { parts: Array<[string, string]>; cfg: unknown };
    assert.deepEqual(
      ours.parts.map((p) => [p.contentType, p.name]),
      exp.parts,
      `${c.name}: parts`,
    );
    assert.deepEqual(ours.userCloudConfig, exp.cfg, `${c.name}: cloud-config`);
  }
});

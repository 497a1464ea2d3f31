// reset_rmc: nothing without RSCT; with it, rmcctrl -z and recfgct run with RSCT's PATH and the node id must change.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CT_NODE_ID_FILE, resetRmcModule } from '../../src/modules/reset-rmc';
import type { RunOpts, RunResult } from '../../src/platform/platform';
import { tempDir } from '../helpers/temp';
import { dryContext, type DryContext } from './late-context';

/** A dry context on a root with RSCT; recfgct writes NEW_ID to the node id file when NEW_ID is given. */
function rsctContext(root: string, newId: string | undefined, seen: RunOpts[] = []): DryContext {
  mkdirSync(join(root, 'opt/rsct/install/bin'), { recursive: true });
  mkdirSync(join(root, 'etc'), { recursive: true });
  writeFileSync(join(root, 'etc/ct_node_id'), 'aaaa1111\nrest\n');
  const ctx = dryContext(root);
  const run = ctx.dry.run.bind(ctx.dry);
  ctx.dry.run = async (cmd, opts): Promise<RunResult> => {
    seen.push(opts ?? {});
    const r = await run(cmd, opts);
    if (Array.isArray(cmd) && cmd[0] === 'recfgct' && newId) await ctx.dry.writeFile(CT_NODE_ID_FILE, `${newId}\n`);
    return r;
  };
  return ctx;
}

test('reset_rmc runs rmcctrl -z then recfgct with /opt/rsct/install/bin first on PATH, and checks the node id changed', async (t) => {
  const root = tempDir(t);
  const seen: RunOpts[] = [];
  const ctx = rsctContext(root, 'bbbb2222', seen);
  await resetRmcModule.run(ctx, {});
  assert.deepEqual(ctx.commands(), ['rmcctrl -z', 'recfgct']);
  assert.ok(seen.every((o) => o.env?.PATH?.startsWith('/opt/rsct/install/bin:')));
  // recfgct that leaves the id as it was: the module fails as cloud-init's does.
  const same = rsctContext(tempDir(t), undefined);
  await assert.rejects(resetRmcModule.run(same, {}), /New node ID did not get generated\./);
});

test('reset_rmc does nothing without RSCT or with the None datasource; a missing node id file fails', async (t) => {
  const root = tempDir(t);
  const ctx = dryContext(root);
  await resetRmcModule.run(ctx, {});
  assert.deepEqual(ctx.dry.effects, []);
  mkdirSync(join(root, 'opt/rsct/install/bin'), { recursive: true });
  const none = dryContext(root, { instance: { platform: 'none' } });
  await resetRmcModule.run(none, {});
  assert.deepEqual(none.dry.effects, []);
  await assert.rejects(resetRmcModule.run(dryContext(root), {}), /Failed to get node ID from file \/etc\/ct_node_id/);
});

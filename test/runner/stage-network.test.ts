// A stage's network step: skipped when network config is disabled, else rendered, with what it did for later stages.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { DistroInfo } from '../../src/platform/linux/distro/distro-info';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { loadRunConfig } from '../../src/runner/run-config';
import type { NetworkInput } from '../../src/runner/runner-deps';
import { applyStageNetwork } from '../../src/runner/stage-network';
import type { InstanceData } from '../../src/sources/datasource';
import { Logger } from '../../src/util/log';
import { tempDir } from '../helpers/temp';

const DISTRO: DistroInfo = { name: 'debian', family: 'debian', version: '12' };
const INSTANCE: InstanceData = {
  instanceId: 'i-1',
  cloudName: 'c',
  platform: 'p',
  subplatform: 's',
  publicKeys: [],
  metadata: {},
};

type Context = Parameters<typeof tempDir>[0];

async function step(t: Context, config: Record<string, unknown>, stage: 'local' | 'network', written: string[]) {
  const root = tempDir(t);
  const logger = new Logger();
  const platform = new LinuxPlatform({ root, log: logger.for('p') });
  const rc = await loadRunConfig(platform, undefined, '');
  rc.config = config;
  const asked: NetworkInput[] = [];
  const deps = {
    async selectAndRenderNetwork(input: NetworkInput) {
      asked.push(input);
      return { written };
    },
  };
  const log = logger.for('main.py');
  const renderLog = logger.for('stages.py');
  const distro = async () => DISTRO;
  const did = await applyStageNetwork({ platform, log, renderLog, rc, distro, deps, instance: INSTANCE, stage });
  return { root, did, asked };
}

test('network: {config: disabled} renders nothing and reports nothing done', async (t) => {
  const { did, asked } = await step(t, { network: { config: 'disabled' } }, 'local', ['/etc/x']);
  assert.deepEqual(did, { appliedForInstance: false, localWritten: false });
  assert.equal(asked.length, 0);
});

test('init-local renders, brings nothing up and says it wrote files; the network stage brings up', async (t) => {
  const local = await step(t, {}, 'local', ['/etc/netplan/50-cloud-init.yaml']);
  assert.deepEqual(local.did, { appliedForInstance: true, localWritten: true });
  assert.equal(local.asked[0]?.bringUp, false);
  assert.equal(existsSync(join(local.root, 'run/cloud-init/sem/apply_network_config.once')), true);
  const network = await step(t, {}, 'network', ['/etc/netplan/50-cloud-init.yaml']);
  assert.deepEqual(network.did, { appliedForInstance: true, localWritten: false });
  assert.equal(network.asked[0]?.bringUp, true);
  const quiet = await step(t, { disable_network_activation: true }, 'network', []);
  assert.equal(quiet.asked[0]?.bringUp, false);
  assert.equal(existsSync(join(quiet.root, 'run/cloud-init/sem/apply_network_config.once')), false);
});

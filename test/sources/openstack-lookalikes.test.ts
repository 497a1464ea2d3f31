// The OpenStack lookalikes cloud-init recognises by the DMI chassis asset tag alone, and machines it must not take for
// OpenStack.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openStackSource } from '../../src/sources/openstack';
import { Logger } from '../../src/util/log';
import { scriptedPlatform } from './scripted-platform';

function ctxWith(dmi: Record<string, string>) {
  const log = new Logger().for('test');
  return {
    platform: scriptedPlatform({ nics: [], answer: () => undefined }).platform,
    log,
    kernelCmdline: '',
    dmi,
    config: {},
    finder: { find: async () => [] },
  } as never;
}

test('OpenStack lookalikes are detected by the asset tags cloud-init lists (Samsung SCP, Huawei, OTC, SAP, Nova/Compute as a tag)', async () => {
  for (const tag of [
    'Samsung Cloud Platform',
    'HUAWEICLOUD',
    'OpenTelekomCloud',
    'SAP CCloud VM',
    'OpenStack Nova',
    'OpenStack Compute',
  ]) {
    assert.equal(await openStackSource.detect(ctxWith({ chassis_asset_tag: tag })), true, tag);
    assert.equal(await openStackSource.localEvidence?.(ctxWith({ chassis_asset_tag: tag })), true, tag);
  }
});

test('asset tags that only resemble a lookalike are not OpenStack (matching is exact, as ds-identify does)', async () => {
  for (const tag of ['SAMSUNGCLOUD', 'Samsung Cloud', 'huaweicloud', 'OpenTelekomCloud2', '', 'No Asset Tag']) {
    assert.equal(await openStackSource.detect(ctxWith({ chassis_asset_tag: tag })), false, tag);
  }
});

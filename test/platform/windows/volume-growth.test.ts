// planVolumeGrowth: how far a partition may grow on GPT and MBR layouts, and when it may not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planVolumeGrowth } from '../../../src/platform/windows/volume-growth';

const MiB = 1024 * 1024;

test('a partition grows to the next partition or the usable end, MiB aligned', () => {
  const layout = {
    style: 'gpt' as const,
    usableEnd: 100 * MiB + 17 * 512,
    partitions: [
      { number: 1, start: MiB, length: 9 * MiB },
      { number: 2, start: 50 * MiB, length: 10 * MiB },
    ],
  };
  assert.deepEqual(planVolumeGrowth([{ diskNumber: 0, start: MiB, length: 9 * MiB }], layout), {
    grow: true,
    partition: layout.partitions[0],
    bytes: 40 * MiB,
    newLength: 49 * MiB,
  });
  const second = planVolumeGrowth([{ diskNumber: 0, start: 50 * MiB, length: 10 * MiB }], layout);
  assert.ok(second.grow && second.bytes === 40 * MiB, 'the GPT backup area past the last full MiB is left alone');
});

test('no growth: spanned volumes, unknown extents, no free space, slivers', () => {
  const layout = {
    style: 'mbr' as const,
    usableEnd: 20 * MiB + 4096,
    partitions: [{ number: 1, start: MiB, length: 19 * MiB }],
  };
  assert.match(String((planVolumeGrowth([], layout) as { reason: string }).reason), /0 disk extents/);
  assert.match(
    String((planVolumeGrowth([{ diskNumber: 0, start: 2 * MiB, length: MiB }], layout) as { reason: string }).reason),
    /no partition of disk 0 starts at byte/,
  );
  assert.deepEqual(planVolumeGrowth([{ diskNumber: 0, start: MiB, length: 19 * MiB }], layout), {
    grow: false,
    reason: 'no free space follows its partition',
  });
});

test('a logical partition grows only inside its extended partition', () => {
  const layout = {
    style: 'mbr' as const,
    usableEnd: 100 * MiB,
    partitions: [
      { number: 1, start: MiB, length: 9 * MiB },
      { number: 2, start: 10 * MiB, length: 40 * MiB },
      { number: 5, start: 11 * MiB, length: 10 * MiB },
    ],
  };
  const plan = planVolumeGrowth([{ diskNumber: 0, start: 11 * MiB, length: 10 * MiB }], layout);
  assert.ok(plan.grow);
  assert.equal(plan.bytes, 29 * MiB);
});

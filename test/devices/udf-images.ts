// Test helper: a UDF-only image from genisoimage -udf output (for the UDF reader and Azure's provisioning medium).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { run } from './image-tools';

/**
 * Turns a hybrid ISO9660/UDF image (genisoimage -udf) into a UDF-only one: the Volume Recognition Sequence is
 * rewritten to BEA01/NSR02/TEA01 at sector 16, so no CD001 descriptor is left and only the UDF side describes
 * the files (the UDF structures themselves stay as genisoimage wrote them).
 */
export function stripIso9660(image: string): void {
  const b = readFileSync(image);
  const vrs: Buffer[] = [];
  for (let s = 16; s < 32; s++) {
    const id = b.subarray(s * 2048 + 1, s * 2048 + 6).toString('latin1');
    if (id === 'BEA01' || id === 'NSR02' || id === 'NSR03' || id === 'TEA01')
      vrs.push(Buffer.from(b.subarray(s * 2048, (s + 1) * 2048)));
  }
  assert.equal(vrs.length, 3, 'genisoimage -udf should write BEA01, NSR02, TEA01');
  b.fill(0, 16 * 2048, 32 * 2048);
  for (const [i, d] of vrs.entries()) d.copy(b, (16 + i) * 2048);
  writeFileSync(image, b);
}

/** A UDF-only image of the folder SRC labelled LABEL, made by genisoimage -udf. */
export function makeUdfImage(src: string, image: string, label: string): void {
  run('genisoimage', ['-quiet', '-udf', '-V', label, '-o', image, src]);
  stripIso9660(image);
}

// Files a module test puts in its sandbox root before the module runs: config the image holds, tools the module looks
// for.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A file at PATH in ROOT with TEXT and MODE (what the image holds before the module runs). */
export function putFile(root: string, path: string, text = '', mode = 0o644): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
  chmodSync(join(root, path), mode);
}

/** An executable stand-in at PATH in ROOT, so the module's `which` finds the tool. */
export function putTool(root: string, path: string): void {
  putFile(root, path, '#!/bin/sh\n', 0o755);
}

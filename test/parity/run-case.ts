// Runs one parity seed on one side (Debian 13's cloud-init 25.1.4, or kiln installed as /usr/bin/cloud-init) in a
// rootfs copy.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyRootfs, type DebianSuite } from '../helpers/debian-rootfs';
import type { Expectation, ParityCase } from './seeds';
import { installKiln, prepareLaterBoot, runAllStages, seedRoot, type StageRun } from './sandbox-stages';
import { snapshotTree, type Tree } from './tree-snapshot';
import { removeTree } from '../helpers/overlay-copy';

export type Side = 'cloud-init' | { kilnBinary: string };

/**
 * The Debian release whose cloud-init is the oracle: trixie's 25.1.4, the version kiln follows. bookworm's 22.4
 * is no longer compared here: every difference it would show is a change kiln made to follow 25.1.
 */
export const PARITY_SUITE: DebianSuite = 'trixie';

export interface SideResult {
  root: string;
  /** One list of four stage runs per boot. */
  boots: StageRun[][];
  tree: Tree;
  /** Expectations of case.json that did not hold on this side. */
  unmet: string[];
}

export function sideName(side: Side): string {
  return side === 'cloud-init' ? 'cloud-init' : 'kiln';
}

/** Checks case.json's expectations against a finished root. */
export function checkExpectations(root: string, expect: Expectation[]): string[] {
  const unmet: string[] = [];
  for (const e of expect) {
    let text: string | undefined;
    try {
      text = readFileSync(join(root, e.path), 'utf8');
    } catch {
      text = undefined;
    }
    if (e.absent) {
      if (text !== undefined) unmet.push(`${e.path} should not exist`);
    } else if (text === undefined) unmet.push(`${e.path} is missing`);
    else if (e.contains !== undefined && !text.includes(e.contains))
      unmet.push(`${e.path} does not contain ${JSON.stringify(e.contains)}`);
  }
  return unmet;
}

/**
 * Copies the rootfs into WORK/<side>, seeds it, runs every boot's four stages (ENV added to their
 * environment), snapshots the tree.
 */
export function runCaseOnSide(c: ParityCase, side: Side, work: string, env: Record<string, string> = {}): SideResult {
  const root = join(work, sideName(side));
  removeTree(root);
  mkdirSync(root, { recursive: true });
  copyRootfs(root, { suite: PARITY_SUITE });
  if (side !== 'cloud-init') installKiln(root, side.kilnBinary);
  seedRoot(root, c);
  const boots: StageRun[][] = [runAllStages(root, env)];
  for (const later of c.laterBoots) {
    prepareLaterBoot(root, c, later);
    boots.push(runAllStages(root, env));
  }
  return { root, boots, tree: snapshotTree(root), unmet: checkExpectations(root, c.expect) };
}

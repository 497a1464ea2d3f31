// What this binary is: version, target and the defaults embedded at build time.
import facts from 'kiln:target';
import type { BuildFacts } from 'kiln:target';

export type { BuildFacts };
export const buildFacts: BuildFacts = facts;

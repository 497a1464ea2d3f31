// What this binary is: version, target and the defaults embedded at build time.
import facts from 'kiln:target';
import type { BuildFacts, InstallFile } from 'kiln:target';

export type { BuildFacts, InstallFile };
export const buildFacts: BuildFacts = facts;

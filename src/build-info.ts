// What this binary is: version, target and the defaults embedded at build time.
import facts from 'kiln:target';
import type { BuildFacts, InstallFile } from 'kiln:target';

export type { BuildFacts, InstallFile };
export const buildFacts: BuildFacts = facts;

/**
 * The cloud-init release whose behaviour kiln reproduces: the one the parity tests check it against. File headers
 * name it for tooling, and `cloud-init --version` prints it where version gates read it (CHANGELOG.md); every row
 * of docs/compatibility.md follows it.
 */
export const KILN_CLOUD_INIT_VERSION = '25.1.4';

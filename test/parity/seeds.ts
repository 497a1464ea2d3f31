// The parity seeds: one folder per case under test/parity/seeds/<name>/ with NoCloud files and a case.json.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../helpers/repo';

export const SEEDS_DIR = join(REPO, 'test', 'parity', 'seeds');

/** A later boot of the same machine: same instance id (nothing changes) or a new one (new meta-data/user-data). */
export interface LaterBoot {
  /** A new instance id written into meta-data before this boot; absent means the same instance. */
  instanceId?: string;
  /** File in the seed folder that replaces user-data before this boot. */
  userData?: string;
}

/** A check applied to both sides after the last boot, so each seed proves its modules really acted. */
export interface Expectation {
  path: string;
  /** The file exists and contains this text. */
  contains?: string;
  /** The file does not exist. */
  absent?: boolean;
}

export interface ParityCase {
  name: string;
  dir: string;
  notes: string;
  /** The modules this seed is meant to exercise (documentation; also listed in docs/parity.md). */
  modules: string[];
  laterBoots: LaterBoot[];
  expect: Expectation[];
  files: { metaData: string; userData?: string; vendorData?: string; networkConfig?: string };
}

export function loadSeeds(dir = SEEDS_DIR): ParityCase[] {
  return readdirSync(dir)
    .filter((n) => statSync(join(dir, n)).isDirectory())
    .sort()
    .map((name) => {
      const d = join(dir, name);
      const c = JSON.parse(readFileSync(join(d, 'case.json'), 'utf8')) as Partial<ParityCase>;
      const opt = (f: string) => (existsSync(join(d, f)) ? join(d, f) : undefined);
      const files: ParityCase['files'] = { metaData: join(d, 'meta-data') };
      const ud = opt('user-data');
      const vd = opt('vendor-data');
      const nc = opt('network-config');
      if (ud) files.userData = ud;
      if (vd) files.vendorData = vd;
      if (nc) files.networkConfig = nc;
      return {
        name,
        dir: d,
        notes: c.notes ?? '',
        modules: c.modules ?? [],
        laterBoots: c.laterBoots ?? [],
        expect: c.expect ?? [],
        files,
      };
    });
}

// Builds a NoCloud (cidata) or OpenStack config drive (config-2) image from a folder or files, as ISO or FAT.
import type { Stats } from 'node:fs';
import { basename, join } from 'node:path';
import { writeFat, type FatBits } from './fat-writer';
import { writeIso9660 } from './iso9660-writer';
import { SeedError, type SeedFile } from './seed-files';
import { fsPromises } from '../util/on-demand-builtins';

export type SeedKind = 'nocloud' | 'configdrive';
export type SeedFormat = 'iso' | 'vfat';

export interface MakeSeedOptions {
  kind: SeedKind;
  format: SeedFormat;
  /** A folder (its whole tree), or files given as 'PATH' (kept at their base name) or 'NAME=PATH'. */
  inputs: string[];
  label?: string;
  size?: number;
  fatBits?: FatBits;
  time?: Date;
  /** Looks at the files before they are written (the command warns about YAML the instance could not read). */
  inspect?: (files: readonly SeedFile[]) => void;
}

const MAX_SEED_BYTES = 1024 * 1024 * 1024;

async function walk(dir: string, prefix: string, out: SeedFile[]): Promise<void> {
  for (const name of (await fsPromises().readdir(dir)).sort()) {
    const full = join(dir, name);
    const st = await fsPromises().stat(full);
    const rel = prefix ? `${prefix}/${name}` : name;
    if (st.isDirectory()) await walk(full, rel, out);
    else if (st.isFile()) out.push({ path: rel, data: await fsPromises().readFile(full) });
    else throw new SeedError(`${full} is neither a file nor a folder; a seed holds only those`);
  }
}

/** The files of the seed, read from OPTS.inputs. */
export async function collectSeedFiles(inputs: string[]): Promise<SeedFile[]> {
  const out: SeedFile[] = [];
  for (const input of inputs) {
    const eq = input.indexOf('=');
    const named =
      eq > 0 &&
      !(await fsPromises()
        .lstat(input)
        .then(
          () => true,
          () => false,
        ));
    const path = named ? input.slice(eq + 1) : input;
    let st: Stats;
    try {
      st = await fsPromises().stat(path);
    } catch {
      throw new SeedError(`seed input '${path}' does not exist`);
    }
    if (st.isDirectory()) {
      if (named) throw new SeedError(`'${input}': NAME=PATH takes a file, not a folder`);
      await walk(path, '', out);
    } else out.push({ path: named ? input.slice(0, eq) : basename(path), data: await fsPromises().readFile(path) });
  }
  const total = out.reduce((s, f) => s + f.data.length, 0);
  if (total > MAX_SEED_BYTES) throw new SeedError(`seed files total ${total} bytes; the limit is ${MAX_SEED_BYTES}`);
  return out;
}

/** The image bytes. NoCloud seeds get cloud-localds' default meta-data when none is given. */
export async function makeSeed(opts: MakeSeedOptions): Promise<Buffer> {
  const files = await collectSeedFiles(opts.inputs);
  const has = (p: string) => files.some((f) => f.path.replace(/^\/+/, '') === p);
  if (opts.kind === 'nocloud') {
    if (!has('meta-data')) files.push({ path: 'meta-data', data: Buffer.from('instance-id: iid-local01\n') });
    if (!has('user-data'))
      throw new SeedError('a NoCloud seed needs a user-data file (give DIR holding user-data, or user-data=PATH)');
  } else if (!has('openstack/latest/meta_data.json')) {
    throw new SeedError(
      'a config drive needs openstack/latest/meta_data.json (give a folder laid out as openstack/latest/…, or openstack/latest/meta_data.json=PATH)',
    );
  }
  opts.inspect?.(files);
  const label = opts.label ?? (opts.kind === 'nocloud' ? 'cidata' : 'config-2');
  return opts.format === 'iso'
    ? writeIso9660(files, { label, ...(opts.time ? { time: opts.time } : {}) })
    : writeFat(files, {
        label,
        ...(opts.size ? { size: opts.size } : {}),
        ...(opts.fatBits ? { fatBits: opts.fatBits } : {}),
        ...(opts.time ? { time: opts.time } : {}),
      });
}

// `make-seed`: builds a NoCloud or config-drive seed image (ISO9660 + Joliet + Rock Ridge, or FAT), no external tools.
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { readYaml, YamlError } from '../config/read-yaml';
import { makeSeed, type SeedFormat, type SeedKind } from '../devices/make-seed';
import type { SeedFile } from '../devices/seed-files';
import { UsageError } from '../util/errors';
import type { Command } from './command';
import { fsPromises } from '../util/on-demand-builtins';

function parseSize(text: string): number {
  const m = /^(\d+)([KMG]?)i?B?$/i.exec(text);
  if (!m) throw new UsageError(`--size must be a number of bytes or like 64M, not '${text}'`);
  const mult = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[(m[2] ?? '').toUpperCase() as '' | 'K' | 'M' | 'G'];
  return Number(m[1]) * mult;
}

/**
 * The NoCloud files the instance reads as YAML (meta-data, network-config, and user-data that is cloud-config) that
 * it could not read: worth a warning, as the seed is still written (cloud-localds writes whatever it is given).
 */
function yamlWarnings(files: readonly SeedFile[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    const name = f.path.replace(/^\/+/, '');
    const text = Buffer.from(f.data).toString('utf8');
    if (!['meta-data', 'network-config'].includes(name) && !(name === 'user-data' && text.startsWith('#cloud-config')))
      continue;
    try {
      readYaml(text, name);
    } catch (err) {
      if (!(err instanceof YamlError)) throw err;
      out.push(`${err.message}; written as it is, but the instance will not be able to read it`);
    }
  }
  return out;
}

export const makeSeedCommand: Command = {
  words: ['make-seed'],
  summary: 'build a NoCloud (cidata) or config-drive (config-2) seed image from a folder or files',
  usage: 'make-seed [--kind nocloud|configdrive] [--format iso|vfat] -o OUT (DIR | FILE | NAME=FILE ...)',
  faces: ['kiln', 'cloud-init'],
  positional: [1, Infinity],
  flags: {
    string: ['kind', 'format', 'output', 'label', 'size', 'fat'],
    alias: { o: 'output' },
    help: [
      '--kind K         nocloud (label cidata, default) or configdrive (label config-2)',
      '--format F       iso (ISO9660 with Joliet and Rock Ridge, default) or vfat',
      '-o, --output F   the image file to write',
      '--label L        another volume label',
      '--size N         FAT image size, e.g. 64M (default: the files plus room)',
      '--fat 12|16|32   force the FAT type (default by size)',
      'A FILE is stored under its base name; NAME=FILE stores it as NAME (e.g. openstack/latest/meta_data.json=md.json).',
    ],
  },
  async run(ctx, args) {
    const kind = (args.flags.kind as string | undefined) ?? 'nocloud';
    if (kind !== 'nocloud' && kind !== 'configdrive')
      throw new UsageError(`--kind must be nocloud or configdrive, not '${kind}'`);
    const format = (args.flags.format as string | undefined) ?? 'iso';
    if (format !== 'iso' && format !== 'vfat') throw new UsageError(`--format must be iso or vfat, not '${format}'`);
    const output = args.flags.output as string | undefined;
    if (!output) throw new UsageError('give the image to write with -o OUT');
    // The image is written beside its final name and renamed: a missing folder is named as such, not the temp file.
    const folder = statSync(dirname(resolve(output)), { throwIfNoEntry: false });
    if (!folder?.isDirectory())
      throw new UsageError(
        `-o ${output}: the folder ${dirname(resolve(output))} ${folder ? 'is not a folder' : 'does not exist'}`,
      );
    const fat = args.flags.fat as string | undefined;
    if (fat !== undefined && !['12', '16', '32'].includes(fat))
      throw new UsageError(`--fat must be 12, 16 or 32, not '${fat}'`);
    if ((fat !== undefined || args.flags.size !== undefined) && format !== 'vfat')
      throw new UsageError('--size and --fat apply to --format vfat only');
    const epoch = ctx.env.SOURCE_DATE_EPOCH;
    const image = await makeSeed({
      kind: kind as SeedKind,
      format: format as SeedFormat,
      inputs: args.positional,
      ...(args.flags.label !== undefined ? { label: args.flags.label as string } : {}),
      ...(args.flags.size !== undefined ? { size: parseSize(args.flags.size as string) } : {}),
      ...(fat ? { fatBits: Number(fat) as 12 | 16 | 32 } : {}),
      ...(epoch && /^\d+$/.test(epoch) ? { time: new Date(Number(epoch) * 1000) } : {}),
      inspect: (files) => {
        for (const w of yamlWarnings(files)) ctx.io.err(`warning: ${w}\n`);
      },
    });
    if (ctx.dryRun) {
      ctx.io.out(`dry run: would write ${output} (${image.length} bytes)\n`);
      return 0;
    }
    const temp = `${output}.kiln-tmp`;
    await fsPromises().writeFile(temp, image);
    await fsPromises().rename(temp, output);
    ctx.log.info(`wrote ${output} (${image.length} bytes)`);
    return 0;
  },
};

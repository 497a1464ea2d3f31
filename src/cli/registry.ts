// Every subcommand, in one explicit list (no registration by import side effects).
import type { Command } from './command';
import { develFsCatCommand } from './devel-fs-cat';
import { develFsLsCommand } from './devel-fs-ls';
import { develMakeMimeCommand } from './devel-make-mime';
import { develNetConvertCommand } from './devel-net-convert';
import { develRenderCommand } from './devel-render';
import { develRunUserDataCommand } from './devel-run-user-data';
import { develServeMetadataCommand } from './devel-serve-metadata';
import { develShowConfigCommand } from './devel-show-config';
import { develWriteFileCommand } from './devel-write-file';
import { makeSeedCommand } from './make-seed';
import { probeCommand } from './probe';
import { versionCommand } from './version';

export const COMMANDS: Command[] = [
  versionCommand,
  develShowConfigCommand,
  develWriteFileCommand,
  probeCommand,
  develFsLsCommand,
  develFsCatCommand,
  makeSeedCommand,
  develServeMetadataCommand,
  develMakeMimeCommand,
  develRenderCommand,
  develRunUserDataCommand,
  develNetConvertCommand,
];

// Every subcommand, in one explicit list (no registration by import side effects).
import { cloudbaseInitRunCommand, kilnCloudbaseInitCommand } from './cloudbase-init-run';
import type { Command } from './command';
import { develFsCatCommand } from './devel-fs-cat';
import { develFsLsCommand } from './devel-fs-ls';
import { develServeMetadataCommand } from './devel-serve-metadata';
import { develMakeMimeCommand } from './devel-make-mime';
import { develNetConvertCommand } from './devel-net-convert';
import { develRenderCommand } from './devel-render';
import { develRunUserDataCommand } from './devel-run-user-data';
import { develShowConfigCommand } from './devel-show-config';
import { develWriteFileCommand } from './devel-write-file';
import { makeSeedCommand } from './make-seed';
import { probeCommand } from './probe';
import { serviceInstallCommand, serviceRunCommand, serviceUninstallCommand } from './service';
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
  cloudbaseInitRunCommand,
  kilnCloudbaseInitCommand,
  serviceInstallCommand,
  serviceUninstallCommand,
  serviceRunCommand,
  develMakeMimeCommand,
  develRenderCommand,
  develRunUserDataCommand,
  develNetConvertCommand,
];

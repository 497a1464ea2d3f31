// Every subcommand, in one explicit list (no registration by import side effects).
import { allStagesCommand } from './all-stages';
import { analyzeBlameCommand, analyzeBootCommand, analyzeDumpCommand, analyzeShowCommand } from './analyze';
import { checkCommand } from './check';
import { cleanCommand } from './clean';
import { cloudIdCommand } from './cloud-id';
import { cloudbaseInitRunCommand, kilnCloudbaseInitCommand } from './cloudbase-init-run';
import { collectLogsCommand } from './collect-logs';
import type { Command } from './command';
import { develFsCatCommand } from './devel-fs-cat';
import { develFsLsCommand } from './devel-fs-ls';
import { develHotplugHookCommand } from './devel-hotplug-hook';
import { develServeMetadataCommand } from './devel-serve-metadata';
import { develMakeMimeCommand } from './devel-make-mime';
import { develNetConvertCommand } from './devel-net-convert';
import { develRenderCommand } from './devel-render';
import { develRunUserDataCommand } from './devel-run-user-data';
import { develShowConfigCommand } from './devel-show-config';
import { develWin32ProbeCommand } from './devel-win32-probe';
import { develWriteFileCommand } from './devel-write-file';
import { dsIdentifyCommand } from './ds-identify';
import { featuresCommand } from './features';
import { initCommand } from './init';
import { installCommand, uninstallCommand } from './install';
import { modulesCommand } from './modules';
import { queryCommand } from './query';
import { schemaCommand } from './schema';
import { singleCommand } from './single';
import { statusCommand } from './status';
import { makeSeedCommand } from './make-seed';
import { probeCommand } from './probe';
import { serviceInstallCommand, serviceRunCommand, serviceUninstallCommand } from './service';
import { versionCommand } from './version';

export const COMMANDS: Command[] = [
  versionCommand,
  develShowConfigCommand,
  develWriteFileCommand,
  develMakeMimeCommand,
  develRenderCommand,
  develRunUserDataCommand,
  initCommand,
  modulesCommand,
  singleCommand,
  statusCommand,
  queryCommand,
  cleanCommand,
  checkCommand,
  analyzeShowCommand,
  analyzeBlameCommand,
  analyzeDumpCommand,
  analyzeBootCommand,
  schemaCommand,
  collectLogsCommand,
  featuresCommand,
  cloudIdCommand,
  dsIdentifyCommand,
  allStagesCommand,
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
  develNetConvertCommand,
  develHotplugHookCommand,
  develWin32ProbeCommand,
  installCommand,
  uninstallCommand,
];

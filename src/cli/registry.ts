// Every subcommand, in one explicit list (no registration by import side effects).
import { cloudbaseInitRunCommand, kilnCloudbaseInitCommand } from './cloudbase-init-run';
import type { Command } from './command';
import { develShowConfigCommand } from './devel-show-config';
import { develWriteFileCommand } from './devel-write-file';
import { versionCommand } from './version';

export const COMMANDS: Command[] = [versionCommand, develShowConfigCommand, develWriteFileCommand, cloudbaseInitRunCommand, kilnCloudbaseInitCommand];

// Every subcommand, in one explicit list (no registration by import side effects).
import type { Command } from './command';
import { develNetConvertCommand } from './devel-net-convert';
import { develShowConfigCommand } from './devel-show-config';
import { develWriteFileCommand } from './devel-write-file';
import { versionCommand } from './version';

export const COMMANDS: Command[] = [versionCommand, develShowConfigCommand, develWriteFileCommand, develNetConvertCommand];

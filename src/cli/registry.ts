// Every subcommand, in one explicit list (no registration by import side effects).
import type { Command } from './command';
import { develMakeMimeCommand } from './devel-make-mime';
import { develRenderCommand } from './devel-render';
import { develRunUserDataCommand } from './devel-run-user-data';
import { develShowConfigCommand } from './devel-show-config';
import { develWriteFileCommand } from './devel-write-file';
import { versionCommand } from './version';

export const COMMANDS: Command[] = [versionCommand, develShowConfigCommand, develWriteFileCommand, develMakeMimeCommand, develRenderCommand, develRunUserDataCommand];

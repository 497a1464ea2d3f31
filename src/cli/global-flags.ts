// Flags every command accepts.
import type { FlagSpec } from './command';

export const GLOBAL_FLAGS: FlagSpec = {
  string: ['root'],
  boolean: ['dry-run', 'debug', 'version', 'help'],
  alias: { h: 'help', d: 'debug' },
  help: [
    '--root DIR     apply every effect under DIR instead of / (an image or a sandbox)',
    '--dry-run      print the effects kiln would have, change nothing',
    '-d, --debug    log debug messages to stderr',
    '--version      print the version and exit',
    '-h, --help     show help',
  ],
};

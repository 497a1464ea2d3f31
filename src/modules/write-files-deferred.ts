// cc_write_files_deferred: in the final stage, writes the write_files entries marked `defer: true`.
import { isTrue } from './support/config-values';
import type { Module } from './module';
import { writeFileEntries, writeFilesEntries } from './write-files';

export const writeFilesDeferredModule: Module = {
  name: 'write_files_deferred',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: ['write_files'],
  async run(ctx, cfg): Promise<void> {
    const deferred = writeFilesEntries('write_files_deferred', cfg).filter((f) => isTrue(f.defer ?? false));
    if (deferred.length === 0) {
      ctx.log.debug('Skipping module named write_files_deferred, no deferred file defined in configuration');
      return;
    }
    await writeFileEntries(ctx, 'write_files_deferred', deferred);
  },
};

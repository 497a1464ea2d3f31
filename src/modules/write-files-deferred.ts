// cc_write_files_deferred: in the final stage, writes the write_files entries marked `defer: true`.
import type { Module } from './module';
import { configModule } from './support/config-module';
import { writeFileEntries, writeFilesSetting } from './write-files';

export const writeFilesDeferredModule: Module = configModule({
  name: 'write_files_deferred',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: ['write_files'],
  configKeys: { write_files: writeFilesSetting(true) },
  async run(ctx, cfg): Promise<void> {
    const deferred = cfg.write_files ?? [];
    if (deferred.length === 0) {
      ctx.log.debug('Skipping module named write_files_deferred, no deferred file defined in configuration');
      return;
    }
    await writeFileEntries(ctx, 'write_files_deferred', deferred);
  },
});

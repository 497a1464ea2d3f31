// `kiln check`: is this image ready to capture? Every check reads the image through the Platform and changes nothing.
import type { ConfigMap } from '../config/parse-yaml-config';
import type { Platform } from '../platform/platform';
import { cloudPaths } from '../runner/cloud-paths';
import { loadRunConfig } from '../runner/run-config';
import { describeError } from '../util/errors';
import { checkAccounts } from './accounts';
import { checkBootUnits } from './boot-units';
import type { Finding, ImageFiles } from './finding';
import { checkGeneratedConfigs } from './generated-configs';
import { checkInstanceState } from './instance-state';

export interface ImageCheckReport {
  findings: Finding[];
  /** 0 ready, 1 an error, 2 only warnings: `status`'s codes. */
  exitCode: 0 | 1 | 2;
}

function imageFiles(p: Platform): ImageFiles {
  return {
    exists: (path) => p.exists(path),
    listDir: (path) => p.listDir(path),
    readTextIfExists: (path) => p.readTextIfExists(path),
    readLink: async (path) => p.readLink?.(path),
    stat: async (path) => p.stat(path, { followLinks: true }),
  };
}

/** The image's findings, errors first. EMBEDDED is the binary's default cloud.cfg, as a boot would layer it. */
export async function checkImage(platform: Platform, embedded: ConfigMap | undefined): Promise<ImageCheckReport> {
  const files = imageFiles(platform);
  const findings: Finding[] = [];
  // The image's own config decides its paths; one that cannot be read is a finding, and the default paths are checked.
  let config = embedded ?? {};
  let paths = cloudPaths(config);
  try {
    // No kernel command line: the image's, not the machine's running kiln check.
    ({ config, paths } = await loadRunConfig(platform, embedded, ''));
  } catch (err) {
    findings.push({
      check: 'system-config',
      severity: 'error',
      path: '/etc/cloud',
      message: `the image's cloud-init config cannot be read: ${describeError(err)}`,
      fix: 'mend the file the message names',
    });
  }
  for (const check of [
    () => checkBootUnits(files, paths.disabledFile),
    () => checkInstanceState(files, paths),
    () => checkGeneratedConfigs(files, config.ssh_deletekeys !== false),
    () => checkAccounts(files),
  ]) {
    try {
      findings.push(...(await check()));
    } catch (err) {
      // One check that cannot read what it needs does not hide the others' findings.
      findings.push({
        check: 'internal',
        severity: 'error',
        path: '/',
        message: `a check could not finish: ${describeError(err)}`,
        fix: 'report this to kiln',
      });
    }
  }
  findings.sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
  const exitCode = findings.some((f) => f.severity === 'error') ? 1 : findings.length > 0 ? 2 : 0;
  return { findings, exitCode };
}

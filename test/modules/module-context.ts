// Builds a ModuleContext on a sandbox root for module tests (commands run in a chroot inside namespaces, no network).
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DistroInfo } from '../../src/platform/linux/distro/distro-info';
import type { ModuleContext } from '../../src/modules/module';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { testKoffi } from '../helpers/koffi';
import type { InstanceData } from '../../src/sources/datasource';
import { Logger, MemorySink } from '../../src/util/log';

export interface TestModuleContext extends ModuleContext {
  lines: string[];
  outputText(): string;
  problems: string[];
}

export function moduleContext(
  root: string,
  opts: { instance?: Partial<InstanceData>; distro?: DistroInfo } = {},
): TestModuleContext {
  const logger = new Logger();
  const sink = new MemorySink('DEBUG');
  logger.addSink(sink);
  const log = logger.for('test');
  const platform = new LinuxPlatform({ root, log, isolateNetwork: true, loadKoffi: testKoffi });
  let out = '';
  const problems: string[] = [];
  const instance: InstanceData = {
    instanceId: 'iid-test-1',
    cloudName: 'nocloud',
    platform: 'nocloud',
    subplatform: 'seed-dir (/var/lib/cloud/seed/nocloud)',
    publicKeys: [],
    metadata: {},
    ...opts.instance,
  };
  mkdirSync(join(root, 'var/lib/cloud/instances', instance.instanceId), { recursive: true });
  return {
    platform,
    log,
    distro: opts.distro ?? { name: 'debian', family: 'debian', version: '12' },
    instance,
    instanceDir: '/var/lib/cloud/instance',
    paths: { cloudDir: '/var/lib/cloud', runDir: '/run/cloud-init' },
    async output(text: string) {
      out += text;
      mkdirSync(join(root, 'var/log'), { recursive: true });
      appendFileSync(join(root, 'var/log/cloud-init-output.log'), text);
    },
    recoverable(level, message) {
      // As the runner's: logged at its level (and kept here for assertions).
      problems.push(`${level}: ${message}`);
      if (level === 'WARNING') log.warn(message);
      else log.error(message);
    },
    lines: sink.lines,
    outputText: () => out,
    problems,
  };
}

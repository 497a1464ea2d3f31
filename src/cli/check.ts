// `check [--json]`: is the image (--root, or this machine) ready to capture? Exit 0 ready, 1 errors, 2 only warnings.
import { checkImage } from '../image-check/image-check';
import type { Command } from './command';

export const checkCommand: Command = {
  words: ['check'],
  summary:
    'is this image ready to capture: units enabled, no instance state, machine id, host keys, passwords or per-instance config left',
  usage: 'check [--json]',
  faces: ['kiln'],
  os: 'linux',
  positional: [0, 0],
  flags: {
    boolean: ['json'],
    help: ['--json   the findings as JSON: {"ready", "findings": [{check, severity, path, message, fix}]}'],
  },
  async run(ctx, args) {
    const report = await checkImage(ctx.platform(), ctx.facts.defaultCloudConfig);
    if (args.flags.json) {
      ctx.io.out(`${JSON.stringify({ ready: report.exitCode === 0, findings: report.findings }, null, 2)}\n`);
      return report.exitCode;
    }
    for (const f of report.findings) ctx.io.out(`${f.severity}: ${f.message}\n  fix: ${f.fix}\n`);
    const errors = report.findings.filter((f) => f.severity === 'error').length;
    const warnings = report.findings.length - errors;
    const counts = `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`;
    ctx.io.out(
      report.exitCode === 0
        ? 'ready to capture\n'
        : `${counts}: ${report.exitCode === 1 ? 'not ready to capture' : 'ready to capture, but read the warnings'}\n`,
    );
    return report.exitCode;
  },
};

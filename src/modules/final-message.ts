// cc_final_message: prints the final message (version, uptime, timestamp, datasource) and writes boot-finished.
import { posix } from 'node:path';
import { KILN_CLOUD_INIT_VERSION } from '../build-info';
import { describeError } from '../util/errors';
import { configModule } from './support/config-module';
import type { Module, ModuleContext } from './module';
import { renderTemplateText } from './support/cloud-template';

export const FINAL_MESSAGE_DEFAULT =
  '## template: jinja\nCloud-init v. {{version}} finished at {{timestamp}}. Datasource {{datasource}}.  Up {{uptime}} seconds';

/** time.strftime("%a, %d %b %Y %H:%M:%S %z", gmtime()): RFC 2822 in UTC. */
export function timeRfc2822(d: Date): string {
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const p = (n: number) => String(n).padStart(2, '0');
  return `${days[d.getUTCDay()]}, ${p(d.getUTCDate())} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
}

/** /proc/uptime's first field in the target, else the host's uptime, else '??' (util.uptime()). */
async function readUptime(ctx: ModuleContext): Promise<string> {
  const text = await ctx.platform.readTextIfExists('/proc/uptime').catch(() => undefined);
  const first = text?.split(/\s+/)[0];
  if (first && first !== '') return first;
  return (await ctx.platform.hostUptime?.())?.toFixed(2) ?? '??';
}

export interface FinalMessageDeps {
  now: () => Date;
  version: string;
}

export function createFinalMessageModule(deps: FinalMessageDeps): Module {
  return configModule({
    name: 'final_message',
    stage: 'final',
    frequency: 'always',
    distros: 'all',
    activateBy: [],
    // get_cfg_option_str: final_message: 5 is '5' (and null 'None').
    configKeys: { final_message: 'str' },
    async run(ctx, cfg): Promise<void> {
      let template = (cfg.final_message ?? '').trim();
      if (!template) template = FINAL_MESSAGE_DEFAULT;
      const uptime = await readUptime(ctx);
      const ts = timeRfc2822(deps.now());
      const subs: Record<string, string> = {
        uptime,
        timestamp: ts,
        version: deps.version,
        datasource: ctx.datasource ?? 'DataSourceNone',
      };
      for (const [k, v] of Object.entries({ ...subs })) subs[k.toUpperCase()] = v;
      try {
        const message = `${renderTemplateText(template, subs)}\n`;
        ctx.log.info(message.trimEnd());
        await ctx.output(message);
      } catch (err) {
        ctx.recoverable('WARNING', `Failed to render final message template: ${describeError(err)}`);
      }
      const bootFinished = posix.join(ctx.instanceDir, 'boot-finished');
      try {
        await ctx.platform.writeFile(bootFinished, `${uptime} - ${ts} - v. ${deps.version}\n`);
      } catch (err) {
        ctx.recoverable('WARNING', `Failed to write boot finished file ${bootFinished}: ${describeError(err)}`);
      }
      if (ctx.instance?.platform === 'none') ctx.log.warn('Used fallback datasource');
    },
  });
}

export const finalMessageModule: Module = createFinalMessageModule({
  now: () => new Date(),
  version: KILN_CLOUD_INIT_VERSION,
});

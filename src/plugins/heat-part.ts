// A Heat (text/x-cfninitdata) user data part as cloudbase-init's heat plugin handles it: written under heat_config_dir,
// cfn-userdata then run.
import type { HeatPart } from '../userdata/windows-user-data';
import { DONE, type PluginContext, type PluginResult } from './plugin';

/**
 * heat_config_dir joined with the part's file name (sub-folders kept, `/` read as `\`). A name that is absolute or
 * climbs out with `..` is refused: cloudbase-init would write wherever it points.
 */
export function heatFilePath(dir: string, filename: string | undefined): string {
  if (filename === undefined || filename === '')
    throw new Error('a Heat part needs a file name (Content-Disposition filename) to be written under heat_config_dir');
  const rel = filename.replace(/\//g, '\\');
  if (/^(?:[A-Za-z]:|\\)/.test(rel) || rel.split('\\').includes('..'))
    throw new Error(`Heat part file name '${filename}' is not a plain name under heat_config_dir`);
  return `${dir.replace(/[\\/]+$/, '')}\\${rel}`;
}

/**
 * Writes the part (its folder made when missing) and, for cfn-userdata, runs it with RUN (the user data's script
 * runner) and returns its result; a cfn-userdata of no format cloudbase-init runs is logged and done, as is every
 * other Heat file.
 */
export async function handleHeatPart(
  ctx: PluginContext,
  step: HeatPart,
  run: () => Promise<PluginResult>,
): Promise<PluginResult> {
  const path = heatFilePath(ctx.conf.strValue('heat_config_dir'), step.filename);
  const dir = path.replace(/\\[^\\]*$/, '');
  await ctx.platform.mkdir(dir);
  await ctx.platform.writeFile(path, step.content, { mode: 0o600 });
  ctx.log.info(`Heat part written to ${path}`);
  if (step.scripts === undefined) return DONE;
  if (step.scripts.length === 0) {
    ctx.log.warn(`Heat ${step.filename}: unsupported user data format; not run`);
    return DONE;
  }
  return run();
}

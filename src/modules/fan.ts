// cc_fan: writes the Ubuntu FAN overlay network config (fan: {config, config_path}), installs ubuntu-fan and (re)starts
// it.
import { configModule } from './support/config-module';
import { readConfigValue } from './support/config-readers';
import { isRecord } from './support/config-shapes';
import { pyTruthy } from '../util/python-truthy';
import { whichInTarget } from './support/distro-facts';
import { installPackages } from './support/install-packages';
import { manageService } from './support/service-control';
import { ModuleError, type Module, type ModuleContext } from './module';
import { describeError } from '../util/errors';

export const DEFAULT_FAN_CONFIG_PATH = '/etc/network/fan';
const FAN_SERVICE = 'ubuntu-fan';

/** A stop or start that fails is only warned about, as cloud-init's stop_update_start does. */
async function tryService(ctx: ModuleContext, action: 'stop' | 'start'): Promise<boolean> {
  try {
    await manageService(ctx, action, FAN_SERVICE);
    return true;
  } catch (e) {
    ctx.log.warn(`failed to ${action} ${FAN_SERVICE}: ${describeError(e)}`);
    return false;
  }
}

/**
 * fan as cc_fan reads it: a Python-false fan, or one without a config, is as if unset (the module skips); of a
 * mapping only config and config_path; anything else as it is. A config that is no text is refused in kiln's words.
 */
function fanSetting(fan: unknown): unknown {
  if (!pyTruthy(fan) || (isRecord(fan) && !pyTruthy(fan.config))) return undefined;
  if (isRecord(fan) && typeof fan.config !== 'string')
    throw new ModuleError('fan', "'fan.config' must be a string (the fan configuration, one multi-line string)");
  return readConfigValue({ config: 'as-is', config_path: 'as-is' }, fan);
}

export const fanModule: Module = configModule({
  name: 'fan',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: ['ubuntu'],
  activateBy: ['fan'],
  configKeys: { fan: fanSetting },
  async run(ctx, cfg): Promise<void> {
    if (cfg.fan === undefined) {
      ctx.log.debug("fan: no 'fan' config entry. disabling");
      return;
    }
    const config = cfg.fan.config;
    const path = cfg.fan.config_path ?? DEFAULT_FAN_CONFIG_PATH;
    if (path === '') throw new ModuleError('fan', "'fan.config_path' must be a file path");
    // cloud-init writes the config as given before installing, then again with a final newline around the restart.
    await ctx.platform.writeFile(path, config);
    if (!(await whichInTarget(ctx.platform, 'fanctl'))) await installPackages(ctx, 'fan', ['ubuntu-fan']);
    const stopped = await tryService(ctx, 'stop');
    await ctx.platform.writeFile(path, config.endsWith('\n') ? config : `${config}\n`);
    if ((await tryService(ctx, 'start')) && !stopped) ctx.log.warn(`success: ${FAN_SERVICE} started`);
    await manageService(ctx, 'enable', FAN_SERVICE);
  },
});

// cc_fan: writes the Ubuntu FAN overlay network config (fan: {config, config_path}), installs ubuntu-fan and (re)starts it.
import { isRecord } from './support/config-shapes';
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

export const fanModule: Module = {
  name: 'fan',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: ['ubuntu'],
  activateBy: ['fan'],
  async run(ctx, cfg): Promise<void> {
    const fan = cfg.fan ? cfg.fan : {};
    if (!isRecord(fan)) throw new ModuleError('fan', "'fan' must be a mapping with 'config' (and optionally 'config_path')");
    const config = fan.config;
    if (!config) {
      ctx.log.debug("fan: no 'fan' config entry. disabling");
      return;
    }
    if (typeof config !== 'string') throw new ModuleError('fan', "'fan.config' must be a string (the fan configuration, one multi-line string)");
    const path = fan.config_path === undefined || fan.config_path === null ? DEFAULT_FAN_CONFIG_PATH : fan.config_path;
    if (typeof path !== 'string' || path === '') throw new ModuleError('fan', "'fan.config_path' must be a file path");
    // cloud-init writes the config as given before installing, then again with a final newline around the restart.
    await ctx.platform.writeFile(path, config);
    if (!(await whichInTarget(ctx.platform, 'fanctl'))) await installPackages(ctx, 'fan', ['ubuntu-fan']);
    const stopped = await tryService(ctx, 'stop');
    await ctx.platform.writeFile(path, config.endsWith('\n') ? config : `${config}\n`);
    if ((await tryService(ctx, 'start')) && !stopped) ctx.log.warn(`success: ${FAN_SERVICE} started`);
    await manageService(ctx, 'enable', FAN_SERVICE);
  },
};

// cc_keyboard: sets the keyboard layout with localectl (systemd targets), as cloud-init does.
import { isRecord } from './support/config-shapes';
import { usesSystemd } from './support/distro-facts';
import { ModuleError, type Module } from './module';

export const DEFAULT_KEYBOARD_MODEL = 'pc105';

export const keyboardModule: Module = {
  name: 'keyboard',
  stage: 'config',
  frequency: 'once-per-instance',
  distros: ['arch', 'debian', 'ubuntu', 'rhel', 'fedora', 'centos', 'rocky', 'almalinux', 'opensuse', 'sles', 'alpine'],
  activateBy: ['keyboard'],
  async run(ctx, cfg): Promise<void> {
    const kb = cfg.keyboard;
    if (kb === undefined) {
      ctx.log.debug("Skipping module named keyboard, no 'keyboard' section found");
      return;
    }
    if (!isRecord(kb) || typeof kb.layout !== 'string' || kb.layout === '') {
      throw new ModuleError('keyboard', "'keyboard.layout' is required (e.g. keyboard: {layout: us})");
    }
    const text = (v: unknown, d: string) => (v === undefined || v === null ? d : String(v));
    const layout = kb.layout;
    const model = text(kb.model, DEFAULT_KEYBOARD_MODEL);
    const variant = text(kb.variant, '');
    const options = text(kb.options, '');
    ctx.log.debug(`Setting keyboard layout to '${layout}'`);
    if (ctx.distro.family === 'alpine') {
      // Alpine has no localectl: setup-keymap takes layout and variant.
      await ctx.platform.run(['setup-keymap', layout, variant || layout]);
      return;
    }
    if (!(await usesSystemd(ctx.platform))) {
      throw new ModuleError('keyboard', 'setting the keymap needs systemd (localectl); /run/systemd/system is missing in the target');
    }
    await ctx.platform.run(['localectl', 'set-x11-keymap', layout, model, variant, options]);
    if (ctx.distro.family === 'debian') {
      // localectl does not apply the console keymap at once on Debian (Debian bug 926037).
      await ctx.platform.run(['systemctl', 'restart', 'console-setup']);
    }
  },
};

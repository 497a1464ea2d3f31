// cc_raspberry_pi (upstream 25.x): turns SPI, I2C, 1-Wire and the serial port on or off with `raspi-config nonint`,
// switches USB gadget mode, and reboots when something changed.
import { ModuleError, type CloudConfig, type Module, type ModuleContext } from './module';
import { isRecord } from './support/config-shapes';

const MODULE = 'raspberry_pi';
const RASPI_CONFIG = '/usr/bin/raspi-config';
const USB_GADGET_SCRIPT = '/usr/bin/rpi-usb-gadget';
const REBOOT_MSG = 'Rebooting to apply config.txt changes...';
/** The raspi-config function behind each on/off interface. */
const INTERFACE_FUNCTIONS: Record<string, string> = { spi: 'do_spi', i2c: 'do_i2c', onewire: 'do_onewire' };

/** raspi-config's convention: 0 turns a feature on, 1 turns it off. */
const flag = (on: boolean): string => (on ? '0' : '1');

/** Runs ARGV; a failure is logged as an error (as upstream) and reported as false. */
async function attempt(ctx: ModuleContext, argv: string[], what: string, timeoutMs?: number): Promise<boolean> {
  const r = await ctx.platform.run(argv, { allowFailure: true, ...(timeoutMs ? { timeoutMs } : {}) });
  if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
  if (r.code === 0) return true;
  ctx.recoverable(
    'ERROR',
    `Failed to configure ${what}: '${argv.join(' ')}' exited with code ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim()}` : ''}`,
  );
  return false;
}

async function configureUsbGadget(ctx: ModuleContext, enable: boolean): Promise<boolean> {
  ctx.log.debug(`Enable rpi-usb-gadget mode: ${enable ? 'True' : 'False'}`);
  if (!(await ctx.platform.exists(USB_GADGET_SCRIPT))) {
    ctx.recoverable('ERROR', `rpi-usb-gadget script not found: ${USB_GADGET_SCRIPT}`);
    return false;
  }
  // -f: forced even on a board that cannot do it, as upstream (the card may move to one that can).
  return attempt(ctx, [USB_GADGET_SCRIPT, enable ? 'on' : 'off', '-f'], 'rpi-usb-gadget', 30_000);
}

/**
 * The serial console and UART: a bool sets the console (and, before the Pi 5, the UART with it); a mapping sets each.
 */
async function configureSerial(ctx: ModuleContext, cfg: boolean | Record<string, unknown>): Promise<boolean> {
  const field = (name: string): boolean => {
    if (typeof cfg === 'boolean') return false;
    const v = cfg[name] ?? false;
    if (typeof v !== 'boolean') {
      ctx.recoverable('WARNING', `Invalid value for interfaces.serial.${name}: ${JSON.stringify(v)}`);
      return false;
    }
    return v;
  };
  const console = typeof cfg === 'boolean' ? cfg : field('console');
  let hardware = typeof cfg === 'boolean' ? false : field('hardware');
  const isPiFive = (await ctx.platform.run([RASPI_CONFIG, 'nonint', 'is_pifive'], { allowFailure: true })).code === 0;
  // Only the Pi 5 has a second usable UART: elsewhere the console needs the hardware UART on.
  if (!isPiFive && console) hardware = true;
  if (!(await attempt(ctx, [RASPI_CONFIG, 'nonint', 'do_serial_cons', flag(console)], 'serial console'))) return false;
  return attempt(ctx, [RASPI_CONFIG, 'nonint', 'do_serial_hw', flag(hardware)], 'serial hardware');
}

export const raspberryPiModule: Module = {
  name: 'raspberry_pi',
  stage: 'config',
  frequency: 'once-per-instance',
  distros: ['raspberry-pi-os'],
  activateBy: ['rpi'],
  async run(ctx: ModuleContext, cfg: CloudConfig): Promise<void> {
    if (!('rpi' in cfg)) return;
    const rpi = cfg.rpi;
    if (!isRecord(rpi)) {
      ctx.recoverable('WARNING', `Invalid value for rpi: ${JSON.stringify(rpi)}`);
      return;
    }
    if (Object.keys(rpi).length === 0) {
      ctx.log.debug('Empty value for rpi. Skipping...');
      return;
    }
    let reboot = false;
    for (const [key, value] of Object.entries(rpi)) {
      if (key === 'enable_usb_gadget') {
        if (typeof value !== 'boolean') throw new ModuleError(MODULE, 'Invalid value for enable_usb_gadget');
        reboot = (await configureUsbGadget(ctx, value)) || reboot;
      } else if (key === 'interfaces') {
        // As upstream, a bad or empty interfaces mapping ends the module (no reboot either).
        if (!isRecord(value)) {
          ctx.recoverable('WARNING', `Invalid value for rpi: ${JSON.stringify(value)}`);
          return;
        }
        if (Object.keys(value).length === 0) {
          ctx.log.debug('Empty value for interfaces. Skipping...');
          return;
        }
        for (const [iface, enable] of Object.entries(value)) {
          if (iface === 'serial') {
            if (typeof enable === 'boolean' || isRecord(enable))
              reboot = (await configureSerial(ctx, enable)) || reboot;
            else ctx.recoverable('WARNING', `Invalid value for interfaces.serial: ${JSON.stringify(enable)}`);
          } else if (!(iface in INTERFACE_FUNCTIONS)) {
            ctx.recoverable('WARNING', `Invalid key for interfaces: ${iface}`);
          } else if (typeof enable !== 'boolean') {
            ctx.recoverable('WARNING', `Invalid value for interfaces.${iface}: ${JSON.stringify(enable)}`);
          } else {
            reboot =
              (await attempt(
                ctx,
                [RASPI_CONFIG, 'nonint', INTERFACE_FUNCTIONS[iface] as string, flag(enable)],
                iface,
              )) || reboot;
          }
        }
      } else {
        ctx.recoverable('WARNING', `Unsupported key: ${key}`);
      }
    }
    if (!reboot) return;
    // config.txt and module changes take effect at boot; only the running system is rebooted.
    const argv = ['shutdown', '-r', 'now', REBOOT_MSG];
    if (ctx.platform.root !== '/') {
      ctx.log.info(
        `Not rebooting: the target root is ${ctx.platform.root}, not the running system (would run '${argv.join(' ')}')`,
      );
      return;
    }
    const r = await ctx.platform.run(argv, { allowFailure: true });
    if (r.code !== 0) throw new ModuleError(MODULE, `'${argv.join(' ')}' exited with code ${r.code}`);
  },
};

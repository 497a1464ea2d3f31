// cc_raspberry_pi (upstream 25.x): turns SPI, I2C, 1-Wire and the serial port on or off with `raspi-config nonint`,
// switches USB gadget mode, and reboots when something changed.
import { ModuleError, type Module, type ModuleContext } from './module';
import { configModule } from './support/config-module';
import { OwnParser } from './support/config-readers';
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

/** interfaces.serial as configure_serial_interface reads it. */
interface SerialSetting {
  readonly console: boolean;
  /** The hardware UART (turned on with the console before the Pi 5 whatever this says). */
  readonly hardware: boolean;
  /** Warnings about the fields of a serial mapping that are not booleans (each read as false). */
  readonly warnings: readonly string[];
}

/**
 * One thing rpi asks for, in the order of its keys, as cc_raspberry_pi's handle reads them: a USB gadget mode, an
 * interface or the serial port to set, upstream's warning about a key or value it skips, an enable_usb_gadget that
 * is not a boolean (the module fails there), or the end of the module (after a warning or a debug message).
 */
type RpiStep =
  | { readonly kind: 'usb-gadget'; readonly enable: boolean }
  | { readonly kind: 'usb-gadget-invalid' }
  | { readonly kind: 'interface'; readonly name: string; readonly fn: string; readonly enable: boolean }
  | { readonly kind: 'serial'; readonly setting: SerialSetting }
  | { readonly kind: 'warning'; readonly message: string }
  | { readonly kind: 'end'; readonly level: 'WARNING' | 'debug'; readonly message: string };

/** The serial console and UART as SERIAL asks (before the Pi 5 the console needs the UART), after its warnings. */
async function configureSerial(ctx: ModuleContext, serial: SerialSetting): Promise<boolean> {
  for (const warning of serial.warnings) ctx.recoverable('WARNING', warning);
  const { console } = serial;
  let hardware = serial.hardware;
  const isPiFive = (await ctx.platform.run([RASPI_CONFIG, 'nonint', 'is_pifive'], { allowFailure: true })).code === 0;
  // Only the Pi 5 has a second usable UART: elsewhere the console needs the hardware UART on.
  if (!isPiFive && console) hardware = true;
  if (!(await attempt(ctx, [RASPI_CONFIG, 'nonint', 'do_serial_cons', flag(console)], 'serial console'))) return false;
  return attempt(ctx, [RASPI_CONFIG, 'nonint', 'do_serial_hw', flag(hardware)], 'serial hardware');
}

/** interfaces.serial, a boolean or a mapping: each of a mapping's fields a boolean, else warned about and false. */
function readSerial(serial: boolean | { readonly [field: string]: unknown }): SerialSetting {
  if (typeof serial === 'boolean') return { console: serial, hardware: false, warnings: [] };
  const warnings: string[] = [];
  const field = (name: string): boolean => {
    const v = serial[name] ?? false;
    if (typeof v === 'boolean') return v;
    warnings.push(`Invalid value for interfaces.serial.${name}: ${JSON.stringify(v)}`);
    return false;
  };
  const console = field('console');
  return { console, hardware: field('hardware'), warnings };
}

/** The steps of rpi.interfaces: as upstream, a bad or empty interfaces mapping ends the module (no reboot either). */
function interfaceSteps(interfaces: unknown): RpiStep[] {
  if (!isRecord(interfaces))
    return [{ kind: 'end', level: 'WARNING', message: `Invalid value for rpi: ${JSON.stringify(interfaces)}` }];
  if (Object.keys(interfaces).length === 0)
    return [{ kind: 'end', level: 'debug', message: 'Empty value for interfaces. Skipping...' }];
  return Object.entries(interfaces).map(([iface, enable]): RpiStep => {
    if (iface === 'serial')
      return typeof enable === 'boolean' || isRecord(enable)
        ? { kind: 'serial', setting: readSerial(enable) }
        : { kind: 'warning', message: `Invalid value for interfaces.serial: ${JSON.stringify(enable)}` };
    const fn = Object.hasOwn(INTERFACE_FUNCTIONS, iface) ? INTERFACE_FUNCTIONS[iface] : undefined;
    if (fn === undefined) return { kind: 'warning', message: `Invalid key for interfaces: ${iface}` };
    if (typeof enable !== 'boolean')
      return { kind: 'warning', message: `Invalid value for interfaces.${iface}: ${JSON.stringify(enable)}` };
    return { kind: 'interface', name: iface, fn, enable };
  });
}

/** rpi as cc_raspberry_pi's handle reads it: its steps in order (RpiStep). */
function readRpi(rpi: unknown): readonly RpiStep[] {
  if (!isRecord(rpi))
    return [{ kind: 'end', level: 'WARNING', message: `Invalid value for rpi: ${JSON.stringify(rpi)}` }];
  if (Object.keys(rpi).length === 0)
    return [{ kind: 'end', level: 'debug', message: 'Empty value for rpi. Skipping...' }];
  return Object.entries(rpi).flatMap(([key, value]): RpiStep[] => {
    if (key === 'enable_usb_gadget')
      return [typeof value === 'boolean' ? { kind: 'usb-gadget', enable: value } : { kind: 'usb-gadget-invalid' }];
    if (key === 'interfaces') return interfaceSteps(value);
    return [{ kind: 'warning', message: `Unsupported key: ${key}` }];
  });
}

export const raspberryPiModule: Module = configModule({
  name: 'raspberry_pi',
  stage: 'config',
  frequency: 'once-per-instance',
  distros: ['raspberry-pi-os'],
  activateBy: ['rpi'],
  // Upstream's module (25.3; 25.1 has none) warns about and goes past keys and non-booleans its schema rejects.
  configKeys: { rpi: new OwnParser(readRpi) },
  async run(ctx, cfg): Promise<void> {
    let reboot = false;
    for (const step of cfg.rpi ?? []) {
      switch (step.kind) {
        case 'end':
          if (step.level === 'WARNING') ctx.recoverable('WARNING', step.message);
          else ctx.log.debug(step.message);
          return;
        case 'warning':
          ctx.recoverable('WARNING', step.message);
          break;
        case 'usb-gadget':
          reboot = (await configureUsbGadget(ctx, step.enable)) || reboot;
          break;
        case 'usb-gadget-invalid':
          throw new ModuleError(MODULE, 'Invalid value for enable_usb_gadget');
        case 'serial':
          reboot = (await configureSerial(ctx, step.setting)) || reboot;
          break;
        case 'interface':
          reboot = (await attempt(ctx, [RASPI_CONFIG, 'nonint', step.fn, flag(step.enable)], step.name)) || reboot;
          break;
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
});

// raspberry_pi: the `raspi-config nonint` argvs for SPI, I2C, 1-Wire and serial, USB gadget mode, and the reboot only
// on the running system.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateCloudConfig } from '../../src/config/validate-cloud-config';
import { distroInfoFromOsRelease } from '../../src/platform/linux/distro/detect-distro';
import { raspberryPiModule } from '../../src/modules/raspberry-pi';
import { putTool } from './root-files';
import { scriptedModule } from './scripted-module-platform';

const RPI_OS = { name: 'raspberry-pi-os', family: 'debian' as const, version: '12' };
const RC = '/usr/bin/raspi-config nonint';

test('raspberry_pi: each interface through raspi-config (0 on, 1 off), serial console with the UART before the Pi 5, USB gadget forced; no reboot under --root', async (t) => {
  const { root, ctx, commands } = scriptedModule(t, { [`${RC} is_pifive`]: { code: 1 } }, RPI_OS);
  putTool(root, '/usr/bin/rpi-usb-gadget');
  await raspberryPiModule.run(ctx, {
    rpi: {
      interfaces: { spi: true, i2c: false, serial: { console: true }, onewire: true, uart: true },
      enable_usb_gadget: true,
    },
  });
  assert.deepEqual(commands(), [
    `${RC} do_spi 0`,
    `${RC} do_i2c 1`,
    `${RC} is_pifive`,
    `${RC} do_serial_cons 0`,
    `${RC} do_serial_hw 0`,
    `${RC} do_onewire 0`,
    '/usr/bin/rpi-usb-gadget on -f',
  ]);
  assert.deepEqual(ctx.problems, ['WARNING: Invalid key for interfaces: uart']);
  assert.match(
    ctx.lines.join('\n'),
    /Not rebooting: the target root is .*would run 'shutdown -r now Rebooting to apply config.txt changes\.\.\.'/,
  );
});

test('raspberry_pi: on a Pi 5 the console leaves the UART alone; serial: false turns both off; a failed call is an error that does not stop the others', async (t) => {
  const a = scriptedModule(t, {}, RPI_OS);
  await raspberryPiModule.run(a.ctx, { rpi: { interfaces: { serial: { console: true, hardware: 'yes' } } } });
  assert.deepEqual(a.commands(), [`${RC} is_pifive`, `${RC} do_serial_cons 0`, `${RC} do_serial_hw 1`]);
  assert.deepEqual(a.ctx.problems, ['WARNING: Invalid value for interfaces.serial.hardware: "yes"']);
  const b = scriptedModule(t, { [`${RC} do_i2c 0`]: { code: 1, stderr: 'no i2c' } }, RPI_OS);
  await raspberryPiModule.run(b.ctx, { rpi: { interfaces: { serial: false, i2c: true, spi: 'on', onewire: false } } });
  assert.deepEqual(b.commands(), [
    `${RC} is_pifive`,
    `${RC} do_serial_cons 1`,
    `${RC} do_serial_hw 1`,
    `${RC} do_i2c 0`,
    `${RC} do_onewire 1`,
  ]);
  assert.deepEqual(b.ctx.problems, [
    `ERROR: Failed to configure i2c: '${RC} do_i2c 0' exited with code 1: no i2c`,
    'WARNING: Invalid value for interfaces.spi: "on"',
  ]);
});

test('raspberry_pi: a missing gadget script is an error, a non-boolean enable_usb_gadget fails the module, unknown keys warn', async (t) => {
  const a = scriptedModule(t, {}, RPI_OS);
  await raspberryPiModule.run(a.ctx, { rpi: { enable_usb_gadget: false, camera: true } });
  assert.deepEqual(a.commands(), []);
  assert.deepEqual(a.ctx.problems, [
    'ERROR: rpi-usb-gadget script not found: /usr/bin/rpi-usb-gadget',
    'WARNING: Unsupported key: camera',
  ]);
  await assert.rejects(
    raspberryPiModule.run(a.ctx, { rpi: { enable_usb_gadget: 'yes' } }),
    /raspberry_pi: Invalid value for enable_usb_gadget/,
  );
  await raspberryPiModule.run(a.ctx, { rpi: {} });
  await raspberryPiModule.run(a.ctx, { rpi: { interfaces: {} } });
  assert.deepEqual(a.commands(), []);
});

test('raspberry_pi: runs only on raspberry-pi-os (a Debian-family name cloud.cfg gives); the schema names bad keys and lines', () => {
  assert.deepEqual([raspberryPiModule.distros, raspberryPiModule.stage], [['raspberry-pi-os'], 'config']);
  assert.deepEqual(distroInfoFromOsRelease({ ID: 'debian', VERSION_ID: '12' }, 'raspberry-pi-os'), {
    name: 'raspberry-pi-os',
    family: 'debian',
    version: '12',
    osReleaseId: 'debian',
  });
  const doc = [
    '#cloud-config',
    'rpi:',
    '  interfaces:',
    '    spi: true',
    '    serial:',
    '      console: 1',
    '    can: true',
    '',
  ].join('\n');
  assert.deepEqual(
    validateCloudConfig(doc).problems.map((p) => `${p.line} ${p.path}`),
    ['3 rpi.interfaces', '6 rpi.interfaces.serial.console'],
  );
});

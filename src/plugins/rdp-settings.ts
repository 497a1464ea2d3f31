// RDPSettingsPlugin: turns Remote Desktop keep-alive on or off (rdp_set_keepalive) through its policy values.
import type { Plugin } from './plugin';

const POLICY_KEY = 'SOFTWARE\\Policies\\Microsoft\\Windows NT\\Terminal Services';

export const rdpSettingsPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.windows.rdp.RDPSettingsPlugin',
  name: 'RDPSettingsPlugin',
  stage: 'main',
  async execute(ctx) {
    const keepalive = ctx.conf.boolValue('rdp_set_keepalive');
    ctx.windows.regSet('HKLM', POLICY_KEY, 'KeepAliveEnable', { type: 'REG_DWORD', data: keepalive ? 1 : 0 });
    if (keepalive) ctx.windows.regSet('HKLM', POLICY_KEY, 'KeepAliveInterval', { type: 'REG_DWORD', data: 1 });
    ctx.log.info(`RDP keep-alive ${keepalive ? 'enabled' : 'disabled'}`);
    return { status: 'done', reboot: false };
  },
};

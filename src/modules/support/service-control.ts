// cloud-init's distro.manage_service: systemctl on systemd targets, rc-service on Alpine, else the `service` tool.
import { usesSystemd } from './distro-facts';
import type { ModuleContext } from '../module';

export type ServiceAction = 'start' | 'stop' | 'enable' | 'disable' | 'restart' | 'reload' | 'try-reload';

export async function serviceCommand(ctx: ModuleContext, action: ServiceAction, service: string): Promise<string[]> {
  if (await usesSystemd(ctx.platform)) {
    const verb: Record<ServiceAction, string> = {
      start: 'start',
      stop: 'stop',
      enable: 'enable',
      disable: 'disable',
      restart: 'restart',
      reload: 'reload-or-restart',
      'try-reload': 'reload-or-try-restart',
    };
    return ['systemctl', verb[action], service];
  }
  if (ctx.distro.family === 'alpine') {
    if (action === 'enable') return ['rc-update', 'add', service, 'default'];
    if (action === 'disable') return ['rc-update', 'del', service, 'default'];
    return ['rc-service', '--nocolor', service, action === 'reload' || action === 'try-reload' ? 'restart' : action];
  }
  const verb: Record<ServiceAction, string> = {
    start: 'start',
    stop: 'stop',
    enable: 'start',
    disable: 'stop',
    restart: 'restart',
    reload: 'restart',
    'try-reload': 'restart',
  };
  return ['service', service, verb[action]];
}

/** Runs the command; throws the platform's error when it fails (callers decide whether that is fatal). */
export async function manageService(ctx: ModuleContext, action: ServiceAction, service: string): Promise<void> {
  const r = await ctx.platform.run(await serviceCommand(ctx, action, service));
  if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
}

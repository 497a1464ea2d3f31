// cc_yum_add_repo: one /etc/yum.repos.d/<id>.repo (INI, as Python's ConfigParser writes it) per `yum_repos` entry.
import { posix } from 'node:path';
import { isRecord } from './support/config-shapes';
import { cfgString } from './support/config-values';
import { timeRfc2822 } from './final-message';
import type { Module } from './module';

function formatValue(v: unknown): string {
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (Array.isArray(v)) return v.map(formatValue).join('\n');
  if (v === null || v === undefined) return 'None';
  return typeof v === 'string' ? v : String(v);
}

/** `[id]` then `key = value` lines (continuation lines indented with a tab), a blank line, and cloud-init's header. */
export function formatYumRepo(id: string, config: Record<string, unknown>, now: Date): string {
  const lines = [`# Created by cloud-init on ${timeRfc2822(now)}`, `[${id}]`];
  for (const [k, v] of Object.entries(config)) lines.push(`${k} = ${formatValue(v).replace(/\n/g, '\n\t')}`);
  return `${lines.join('\n')}\n\n`;
}

export function createYumAddRepoModule(now: () => Date): Module {
  return {
    name: 'yum_add_repo',
    stage: 'config',
    frequency: 'once-per-instance',
    distros: [
      'almalinux',
      'centos',
      'cloudlinux',
      'eurolinux',
      'fedora',
      'mariner',
      'openEuler',
      'openmandriva',
      'photon',
      'rhel',
      'rocky',
      'virtuozzo',
    ],
    activateBy: ['yum_repos'],
    async run(ctx, cfg): Promise<void> {
      const repos = cfg.yum_repos;
      if (!isRecord(repos) || Object.keys(repos).length === 0) {
        ctx.log.debug("Skipping module named yum_add_repo, no 'yum_repos' configuration found");
        return;
      }
      const base = cfgString(cfg, 'yum_repo_dir') ?? '/etc/yum.repos.d/';
      const pending = new Map<string, { path: string; config: Record<string, unknown> }>();
      for (const [repoId, raw] of Object.entries(repos)) {
        const id = repoId.replace(/ /g, '-');
        const path = posix.join(base, `${id}.repo`);
        if (await ctx.platform.exists(path)) {
          ctx.log.info(`Skipping repo ${repoId}, file ${path} already exists!`);
          continue;
        }
        if (pending.has(id)) {
          ctx.log.info(`Skipping repo ${repoId}, file ${path} already pending!`);
          continue;
        }
        const config: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(isRecord(raw) ? raw : {})) {
          const key = k.toLowerCase().trim().replace(/-/g, '_');
          if (key) config[key] = v;
        }
        if (!('baseurl' in config)) {
          ctx.log.warn(`Repository ${repoId} does not contain a baseurl configuration 'required' entry`);
          ctx.log.warn(`Repository ${repoId} is missing 1 required fields, skipping!`);
          continue;
        }
        pending.set(id, { path, config });
      }
      for (const [id, { path, config }] of pending)
        await ctx.platform.writeFile(path, formatYumRepo(id, config, now()));
    },
  };
}

export const yumAddRepoModule: Module = createYumAddRepoModule(() => new Date());

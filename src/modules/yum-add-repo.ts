// cc_yum_add_repo: one /etc/yum.repos.d/<id>.repo (INI, as Python's ConfigParser writes it) per `yum_repos` entry.
import { posix } from 'node:path';
import { configModule } from './support/config-module';
import { OwnParser } from './support/config-readers';
import { isRecord } from './support/config-shapes';
import { timeRfc2822 } from './final-message';
import type { Module } from './module';

/** _format_repo_value: booleans as 1 and 0, a list one value a line, anything else its text. */
function formatValue(v: unknown): string {
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (Array.isArray(v)) return v.map(formatValue).join('\n');
  if (v === null || v === undefined) return 'None';
  return typeof v === 'string' ? v : String(v);
}

/**
 * One repo of yum_repos as handle reads it: its options in order, each key lower-cased, stripped and spelled with
 * '_' for '-' (an empty key left out, a later spelling of the same key replacing its value), each value as
 * _format_repo_value writes it.
 */
export type YumRepoOptions = ReadonlyMap<string, string>;

/** A repo's config as handle reads it (see YumRepoOptions); one that is no mapping has no options. */
function yumRepoOptions(raw: unknown): YumRepoOptions {
  const options = new Map<string, string>();
  for (const [k, v] of Object.entries(isRecord(raw) ? raw : {})) {
    const key = k.toLowerCase().trim().replace(/-/g, '_');
    if (key) options.set(key, formatValue(v));
  }
  return options;
}

/**
 * yum_repos as handle reads it: each repo id (as written) with its options; none (the module skips) for a section
 * that is empty or no mapping.
 */
function yumReposSetting(value: unknown): ReadonlyMap<string, YumRepoOptions> | undefined {
  if (!isRecord(value) || Object.keys(value).length === 0) return undefined;
  return new Map(Object.entries(value).map(([id, raw]) => [id, yumRepoOptions(raw)]));
}

/** `[id]` then `key = value` lines (continuation lines indented with a tab), a blank line, and cloud-init's header. */
export function formatYumRepo(id: string, options: YumRepoOptions, now: Date): string {
  const lines = [`# Created by cloud-init on ${timeRfc2822(now)}`, `[${id}]`];
  for (const [k, v] of options) lines.push(`${k} = ${v.replace(/\n/g, '\n\t')}`);
  return `${lines.join('\n')}\n\n`;
}

/** The keys of which a repository needs one at least: where its packages come from. */
const REPO_SOURCE_KEYS = ['baseurl', 'metalink', 'mirrorlist'];

export function createYumAddRepoModule(now: () => Date): Module {
  return configModule({
    name: 'yum_add_repo',
    stage: 'config',
    frequency: 'once-per-instance',
    distros: [
      'almalinux',
      'azurelinux',
      'centos',
      'cloudlinux',
      'eurolinux',
      'fedora',
      'mariner',
      'openeuler',
      'openmandriva',
      'photon',
      'rhel',
      'rocky',
      'virtuozzo',
    ],
    activateBy: ['yum_repos'],
    configKeys: {
      // 25.1's module writes repo ids, option keys and values its schema rejects ('gpg-key', enabled: maybe, lists).
      yum_repos: new OwnParser(yumReposSetting),
      yum_repo_dir: 'str',
    },
    async run(ctx, cfg): Promise<void> {
      const repos = cfg.yum_repos;
      if (repos === undefined) {
        ctx.log.debug("Skipping module named yum_add_repo, no 'yum_repos' configuration found");
        return;
      }
      const base = cfg.yum_repo_dir ?? '/etc/yum.repos.d/';
      const pending = new Map<string, { path: string; options: YumRepoOptions }>();
      for (const [repoId, options] of repos) {
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
        // 25.1 takes any of the three (22.4 wanted baseurl).
        if (!REPO_SOURCE_KEYS.some((key) => options.has(key))) {
          ctx.log.warn(
            `Repository ${repoId} should contain atleast one of the following configuration entries: ${REPO_SOURCE_KEYS.join(', ')}, skipping!`,
          );
          continue;
        }
        pending.set(id, { path, options });
      }
      for (const [id, { path, options }] of pending)
        await ctx.platform.writeFile(path, formatYumRepo(id, options, now()));
    },
  });
}

export const yumAddRepoModule: Module = createYumAddRepoModule(() => new Date());

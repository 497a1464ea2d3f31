// cc_apk_configure: writes /etc/apk/repositories (main, community, edge testing, a local repo) from `apk_repos`.
import { pyTruthy } from '../util/python-truthy';
import { configModule } from './support/config-module';
import { readConfigValue } from './support/config-readers';
import { isRecord } from './support/config-shapes';
import type { Module } from './module';

export const APK_REPOSITORIES = '/etc/apk/repositories';
export const DEFAULT_ALPINE_MIRROR = 'https://alpine.global.ssl.fastly.net/alpine';

export interface ApkRepoParams {
  baseUrl: string;
  version: string;
  community: boolean;
  testing: boolean;
  localRepo: string;
}

/**
 * The repositories file as 25.1's template renders it: its header, main, then community and edge/testing when
 * enabled (testing with a warning comment off edge), then the local repo; the text always ends in a blank line.
 */
export function renderApkRepositories(p: ApkRepoParams): string {
  const lines = ['#', '# Created by cloud-init', '#', '# This file is written on first boot of an instance', '#', ''];
  lines.push(`${p.baseUrl}/${p.version}/main`);
  if (p.community) lines.push(`${p.baseUrl}/${p.version}/community`);
  if (p.testing) {
    if (p.version !== 'edge') lines.push('#', '# Testing - using with non-Edge installation may cause problems!', '#');
    lines.push(`${p.baseUrl}/edge/testing`);
  }
  if (p.localRepo !== '') lines.push('', '#', '# Local repo', '#', `${p.localRepo}/${p.version}`);
  return `${lines.join('\n')}\n\n`;
}

/**
 * alpine_repo as cc_apk_configure reads it: a Python-false one is as if absent; a version that is Python-false is
 * '' ("not specified", so the module skips as upstream's `if not alpine_version` does), any other its str() (the
 * template prints it, as it prints base_url); community_enabled and testing_enabled by the template's truthiness.
 */
function alpineRepoSetting(repo: unknown): unknown {
  if (!pyTruthy(repo)) return undefined;
  if (!isRecord(repo)) return repo;
  const read = readConfigValue(
    { base_url: 'str', community_enabled: 'truthy', testing_enabled: 'truthy', version: 'truthy-str' },
    repo,
  );
  return { ...(read as object), version: (read as { version?: string }).version ?? '' };
}

/**
 * apk_repos as handle reads it: a Python-false section is as if absent; preserve_repositories by
 * get_cfg_option_bool; local_repo_base_url as the template prints it (its str(): null is 'None', as upstream writes).
 */
function apkReposSetting(section: unknown): unknown {
  if (!pyTruthy(section)) return undefined;
  return readConfigValue(
    { preserve_repositories: 'bool', alpine_repo: alpineRepoSetting, local_repo_base_url: 'str' },
    section,
  );
}

export const apkConfigureModule: Module = configModule({
  name: 'apk_configure',
  stage: 'config',
  frequency: 'once-per-instance',
  distros: ['alpine'],
  activateBy: ['apk_repos'],
  configKeys: { apk_repos: apkReposSetting },
  async run(ctx, cfg): Promise<void> {
    const section = cfg.apk_repos;
    if (section === undefined) {
      ctx.log.debug("Skipping module named apk_configure, no 'apk_repos' section found");
      return;
    }
    if (section.preserve_repositories) {
      ctx.log.debug("Skipping module named apk_configure, 'preserve_repositories' is set");
      return;
    }
    const repo = section.alpine_repo;
    if (!repo) {
      ctx.log.debug("Skipping module named apk_configure, no 'alpine_repo' configuration found");
      return;
    }
    if (repo.version === '') {
      ctx.log.debug("Skipping module named apk_configure, 'version' not specified in alpine_repo");
      return;
    }
    const text = renderApkRepositories({
      baseUrl: repo.base_url ?? DEFAULT_ALPINE_MIRROR,
      version: repo.version,
      community: repo.community_enabled ?? false,
      testing: repo.testing_enabled ?? false,
      localRepo: section.local_repo_base_url ?? '',
    });
    ctx.log.debug(`Generating Alpine repository configuration file: ${APK_REPOSITORIES}`);
    await ctx.platform.writeFile(APK_REPOSITORIES, text);
  },
});

// cc_apk_configure: writes /etc/apk/repositories (main, community, edge testing, a local repo) from `apk_repos`.
import { isRecord } from './support/config-shapes';
import { cfgBool } from './support/config-values';
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

/** The repositories file: main, then community and edge/testing when enabled, then the local repo. */
export function renderApkRepositories(p: ApkRepoParams): string {
  const lines = ['#', '# Created by cloud-init (kiln)', '#', '# This file is written on first boot of an instance', '#', ''];
  lines.push(`${p.baseUrl}/${p.version}/main`);
  if (p.community) lines.push(`${p.baseUrl}/${p.version}/community`);
  if (p.testing) {
    if (p.version !== 'edge') lines.push('#', '# Testing repository on a non-edge release: packages may not match this release', '#');
    lines.push(`${p.baseUrl}/edge/testing`);
  }
  if (p.localRepo !== '') lines.push('', '#', '# Local repo', '#', `${p.localRepo}/${p.version}`);
  return `${lines.join('\n')}\n`;
}

export const apkConfigureModule: Module = {
  name: 'apk_configure',
  stage: 'config',
  frequency: 'once-per-instance',
  distros: ['alpine'],
  activateBy: ['apk_repos'],
  async run(ctx, cfg): Promise<void> {
    const section = cfg.apk_repos;
    if (!isRecord(section) || Object.keys(section).length === 0) {
      ctx.log.debug("Skipping module named apk_configure, no 'apk_repos' section found");
      return;
    }
    if (cfgBool(section, 'preserve_repositories', false)) {
      ctx.log.debug("Skipping module named apk_configure, 'preserve_repositories' is set");
      return;
    }
    const repo = section.alpine_repo;
    if (!isRecord(repo) || Object.keys(repo).length === 0) {
      ctx.log.debug("Skipping module named apk_configure, no 'alpine_repo' configuration found");
      return;
    }
    if (repo.version === undefined || repo.version === null || repo.version === '') {
      ctx.log.debug("Skipping module named apk_configure, 'version' not specified in alpine_repo");
      return;
    }
    const text = renderApkRepositories({
      baseUrl: typeof repo.base_url === 'string' ? repo.base_url : DEFAULT_ALPINE_MIRROR,
      version: String(repo.version),
      community: !!repo.community_enabled,
      testing: !!repo.testing_enabled,
      localRepo: typeof section.local_repo_base_url === 'string' ? section.local_repo_base_url : '',
    });
    ctx.log.debug(`Generating Alpine repository configuration file: ${APK_REPOSITORIES}`);
    await ctx.platform.writeFile(APK_REPOSITORIES, text);
  },
};

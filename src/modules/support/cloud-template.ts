// Renders cloud-init's system templates (/etc/cloud/templates/<name>.tmpl in the target) as its templater does.
import { posix } from 'node:path';
import { renderJinja } from '../../userdata/jinja-render';
import { readConfigValue } from './config-readers';
import { isRecord } from './config-shapes';
import type { CloudConfig } from '../module';
import { renderBasic } from './template-vars';

export const DEFAULT_TEMPLATES_DIR = '/etc/cloud/templates';

/** system_info.paths.templates_dir, else /etc/cloud/templates. */
export function templatesDir(cfg: CloudConfig): string {
  const si = isRecord(cfg.system_info) ? cfg.system_info : {};
  const paths = isRecord(si.paths) ? si.paths : {};
  return typeof paths.templates_dir === 'string' && paths.templates_dir ? paths.templates_dir : DEFAULT_TEMPLATES_DIR;
}

/**
 * system_info as cloud.get_template_filename reads it, for a typed module (config-module.ts): its paths.templates_dir,
 * the rest left out; anything but a mapping is none.
 */
export function templatesDirSetting(value: unknown): unknown {
  return isRecord(value) ? readConfigValue({ paths: { templates_dir: 'as-is' } }, value) : undefined;
}

/**
 * cloud-init's templater.render_string: a first line `## template: jinja` selects jinja (trim_blocks, the
 * text's final newline kept), otherwise $var / ${var} substitution.
 */
export function renderTemplateText(text: string, params: Record<string, unknown>): string {
  const nl = text.indexOf('\n');
  const first = nl >= 0 ? text.slice(0, nl) : text;
  const m = /^##\s*template:(.*)/i.exec(first);
  if (!m) return renderBasic(text, params);
  const rest = nl >= 0 ? text.slice(nl + 1) : '';
  if ((m[1] ?? '').trim().toLowerCase() !== 'jinja') return renderBasic(rest, params);
  return renderJinja(rest, params) + (rest.endsWith('\n') ? '\n' : '');
}

/** The template NAME (without .tmpl) from the target's templates folder, or undefined when it has none. */
export async function readSystemTemplate(
  platform: { readTextIfExists(p: string): Promise<string | undefined> },
  cfg: CloudConfig,
  name: string,
): Promise<string | undefined> {
  return platform.readTextIfExists(posix.join(templatesDir(cfg), `${name}.tmpl`));
}

// cc_rightscale_userdata: fetches the scripts named by CLOUD_INIT_REMOTE_HOOK=<url> in raw user data into the
// instance's scripts/.
import { posix } from 'node:path';
import { describeError } from '../util/errors';
import { HttpClient } from '../util/http';
import { ModuleError, type Module } from './module';

export const REMOTE_HOOK_NAME = 'CLOUD_INIT_REMOTE_HOOK';

/** Python's unquote after '+' → ' ': %XX byte escapes decoded as UTF-8 (bad bytes replaced), malformed escapes kept. */
function unquotePlus(s: string): string {
  const text = s.replace(/\+/g, ' ');
  return text.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'));
}

/** Python's urllib.parse.parse_qs (not strict, blank values dropped, '&' the only separator since 3.10). */
export function parseQueryString(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const field of text.split('&')) {
    if (!field) continue;
    const eq = field.indexOf('=');
    if (eq < 0) continue;
    const value = field.slice(eq + 1);
    if (!value) continue;
    const name = unquotePlus(field.slice(0, eq));
    out.set(name, [...(out.get(name) ?? []), unquotePlus(value)]);
  }
  return out;
}

export const rightscaleUserdataModule: Module = {
  name: 'rightscale_userdata',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: [],
  async run(ctx): Promise<void> {
    const raw = ctx.instance?.userData;
    const urls = raw ? parseQueryString(Buffer.from(raw).toString('utf8')).get(REMOTE_HOOK_NAME) : undefined;
    if (!urls) {
      ctx.log.debug(`Skipping module rightscale_userdata, did not find ${REMOTE_HOOK_NAME} in parsed raw userdata`);
      return;
    }
    const scriptsDir = posix.join(ctx.instanceDir, 'scripts');
    const written: string[] = [];
    const failures: string[] = [];
    // One plain GET per URL, no retries, as cloud-init's readurl with its defaults.
    const client = new HttpClient({ log: ctx.log });
    try {
      for (const [i, url] of urls.entries()) {
        const file = posix.join(scriptsDir, `rightscale-${String(i).padStart(2, '0')}`);
        try {
          const res = await client.fetch(url.trim(), { timeoutMs: 30_000 });
          if (res.body.length > 0) {
            await ctx.platform.writeFile(file, res.body, { mode: 0o700 });
            written.push(file);
          }
        } catch (e) {
          failures.push(describeError(e));
          ctx.log.warn(`cc_rightscale_userdata failed to read ${url.trim()} and write ${file}: ${describeError(e)}`);
        }
      }
    } finally {
      await client.close();
    }
    if (written.length) ctx.log.debug(`Wrote out rightscale userdata to ${written.length} files`);
    if (written.length !== urls.length) ctx.log.debug(`${urls.length - written.length} urls were skipped or failed`);
    if (failures.length)
      throw new ModuleError(
        'rightscale_userdata',
        `${failures.length} failed with exceptions, the last: ${failures[failures.length - 1]}`,
      );
  },
};

// cc_phone_home: posts instance id, hostname, fqdn and host public keys to a URL, through an injectable poster.
import { describeError } from '../util/errors';
import { datasourceHostname } from './support/hostname-facts';
import { isRecord } from './support/config-shapes';
import { configModule } from './support/config-module';
import { OwnParser } from './support/config-readers';
import type { Module } from './module';
import { renderBasic } from './support/template-vars';

/** What 'all' posts: 25.1's list, without DSA since 24.1 (a `pub_key_dsa` asked for is N/A, with a warning). */
export const POST_LIST_ALL = ['pub_key_rsa', 'pub_key_ecdsa', 'pub_key_ed25519', 'instance_id', 'hostname', 'fqdn'];

const PUBKEY_FILES: Record<string, string> = {
  pub_key_rsa: '/etc/ssh/ssh_host_rsa_key.pub',
  pub_key_ecdsa: '/etc/ssh/ssh_host_ecdsa_key.pub',
  pub_key_ed25519: '/etc/ssh/ssh_host_ed25519_key.pub',
};

/** Sends one form-encoded POST; resolves with the HTTP status, rejects on a network error. */
export type FormPoster = (url: string, form: Record<string, string>) => Promise<number>;

export const fetchFormPoster: FormPoster = async (url, form) => {
  const res = await fetch(url, {
    method: 'POST',
    body: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    signal: AbortSignal.timeout(30_000),
  });
  await res.arrayBuffer();
  return res.status;
};

export interface PhoneHomeDeps {
  post: FormPoster;
  /** Seconds between tries (cloud-init: 3). */
  secondsBetween: number;
  sleep: (ms: number) => Promise<void>;
}

/** phone_home as the module reads it. */
interface PhoneHomeSetting {
  /** The URL, its str(); none when the mapping has no url (the module then warns and posts nothing). */
  readonly url?: string;
  /** The names to post: POST_LIST_ALL for 'all' (the default), else each name given, str()'d. */
  readonly post: readonly string[];
  /** int() of tries: 10 when it is absent; undefined when it is not an integer (10 then, with a warning). */
  readonly tries: number | undefined;
}

/** phone_home as handle reads it: a mapping (anything else is none); its url, post and tries (PhoneHomeSetting). */
function readPhoneHome(ph: unknown): PhoneHomeSetting | undefined {
  if (!isRecord(ph)) return undefined;
  const postCfg = ph.post ?? 'all';
  const post = postCfg === 'all' ? POST_LIST_ALL : Array.isArray(postCfg) ? postCfg.map(String) : [String(postCfg)];
  const tries = Number.parseInt(String(ph.tries), 10);
  const isInt = Number.isFinite(tries) && String(ph.tries).trim() === String(tries);
  return {
    ...('url' in ph && { url: String(ph.url) }),
    post,
    tries: isInt ? tries : ph.tries === undefined ? 10 : undefined,
  };
}

export function createPhoneHomeModule(deps: PhoneHomeDeps): Module {
  return configModule({
    name: 'phone_home',
    stage: 'final',
    frequency: 'once-per-instance',
    distros: 'all',
    activateBy: ['phone_home'],
    // 25.1's module acts on what its schema rejects: a post name it does not know is posted as N/A, tries that is no
    // integer is 10 with a warning, a mapping without url is only warned about.
    configKeys: { phone_home: new OwnParser(readPhoneHome) },
    async run(ctx, cfg): Promise<void> {
      const ph = cfg.phone_home;
      if (ph === undefined) {
        ctx.log.debug("Skipping module named phone_home, no 'phone_home' configuration found");
        return;
      }
      if (ph.url === undefined) {
        ctx.log.warn("Skipping module named phone_home, no 'url' found in 'phone_home' configuration");
        return;
      }
      const tries = ph.tries ?? 10;
      if (ph.tries === undefined) ctx.log.warn(`Configuration entry 'tries' is not an integer, using ${tries} instead`);
      const instanceId = ctx.instance?.instanceId ?? 'iid-datasource-none';
      // cloud-init's cloud.get_hostname(): the datasource's names, whatever hostname/fqdn the config sets.
      const hostname = (await datasourceHostname(ctx, false)).hostname;
      const fqdn = (await datasourceHostname(ctx, true)).hostname;
      const all: Record<string, string> = { instance_id: instanceId, hostname, fqdn };
      for (const [key, path] of Object.entries(PUBKEY_FILES)) {
        const text = await ctx.platform.readTextIfExists(path).catch(() => undefined);
        if (text === undefined) ctx.log.debug(`${path}: failed to open, can not phone home that data!`);
        else all[key] = text;
      }
      const form: Record<string, string> = {};
      for (const key of ph.post) {
        if (key in all) form[key] = all[key] as string;
        else {
          form[key] = 'N/A';
          ctx.log.warn(`Requested key ${key} from 'post' configuration list not available`);
        }
      }
      const url = renderBasic(ph.url, { INSTANCE_ID: instanceId });
      let lastError = '';
      for (let attempt = 1; attempt <= Math.max(1, tries); attempt++) {
        try {
          const status = await deps.post(url, form);
          if (status >= 200 && status < 400) return;
          lastError = `HTTP ${status}`;
        } catch (err) {
          lastError = describeError(err);
        }
        if (attempt < tries) await deps.sleep(deps.secondsBetween * 1000);
      }
      ctx.recoverable('WARNING', `Failed to post phone home data to ${url} in ${tries} tries: ${lastError}`);
    },
  });
}

export const phoneHomeModule: Module = createPhoneHomeModule({
  post: fetchFormPoster,
  secondsBetween: 3,
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
});

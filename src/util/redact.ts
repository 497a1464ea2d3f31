// Keeps secrets (passwords, tokens, private keys) out of logs and world-readable files.

export const REDACTED = 'REDACTED';

/** Key names whose values are secret wherever they appear (compared case-insensitively, with - and _ alike). */
const SECRET_KEY_PATTERN =
  /(passw(or)?d|secret|token|private[-_]?key|admin[-_]?pass|security[-_]?credentials|user[-_]?data|vendor[-_]?data)/i;

/** Collects secret strings as they become known and scrubs them from any text. */
export class Redactor {
  private readonly secrets = new Set<string>();

  /** Registers a value that must never be printed; values shorter than 4 characters are ignored (too noisy). */
  add(secret: string | undefined | null): void {
    if (secret && secret.length >= 4) this.secrets.add(secret);
  }

  scrub(text: string): string {
    let out = text;
    for (const s of this.secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
    return out;
  }
}

/**
 * Key names that only name a password setting, a flag and not a secret (Azure's `disable_password` and
 * `disablePasswordAuthentication`, cloud-config's `lock_passwd`): their values stay readable.
 */
const PASSWORD_SETTING_PATTERN = /^(disable|enable|lock|expire)[-_]?passw(or)?d|passw(or)?d[-_]?auth(entication)?$/i;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY_PATTERN.test(key) && !PASSWORD_SETTING_PATTERN.test(key);
}

/** A deep copy of VALUE with the values of secret keys replaced by REDACTED. */
export function redactSecretKeys(value: unknown, isSecret: (key: string) => boolean = isSecretKey): unknown {
  if (Array.isArray(value)) return value.map((v) => redactSecretKeys(v, isSecret));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = isSecret(k) ? REDACTED : redactSecretKeys(v, isSecret);
    return out;
  }
  return value;
}

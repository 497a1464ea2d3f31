// /etc/shadow dates its last password change by the clock: what tests normalise so two sides of a run compare equal
// across midnight.

/** Days since the epoch (UTC), as /etc/shadow counts them. */
function epochDay(ms: number): number {
  return Math.floor(ms / 86_400_000);
}

/** The day this test process started: a change made by either side of a case falls on it or later. */
export const RUN_START_DAY = epochDay(Date.now());

/**
 * /etc/shadow with each last-change day (third field) of this run as `<today>`: the two sides of a comparison run
 * minutes apart, so a run that crosses midnight UTC would differ by a day only the clock chose. Earlier days (a
 * rootfs built on another day), an empty field and 0 (change at next login) stay as they are, and are compared.
 */
export function dateChangesOfThisRun(shadow: string, today = epochDay(Date.now())): string {
  return shadow
    .split('\n')
    .map((line) => {
      const f = line.split(':');
      const day = /^\d+$/.test(f[2] ?? '') ? Number(f[2]) : NaN;
      if (f.length !== 9 || !(day >= RUN_START_DAY && day <= today)) return line;
      f[2] = '<today>';
      return f.join(':');
    })
    .join('\n');
}

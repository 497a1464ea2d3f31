// The "Created by cloud-init …" header line cloud-init puts at the top of files it creates (util.make_header).
import { KILN_CLOUD_INIT_VERSION } from '../../build-info';

/** RFC 2822 date as Python's email.utils.formatdate(localtime=True) writes it. */
export function rfc2822(d: Date): string {
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const p = (n: number) => String(n).padStart(2, '0');
  const off = -d.getTimezoneOffset();
  const sign = off >= 0 ? '+' : '-';
  const abs = Math.abs(off);
  return `${days[d.getDay()]}, ${p(d.getDate())} ${months[d.getMonth()]} ${d.getFullYear()} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())} ${sign}${p(Math.floor(abs / 60))}${p(abs % 60)}`;
}

/** '# Created by cloud-init v. 22.4 on <date>' (BASE 'added' gives 'Added by'), the line tools grep for. */
export function makeHeader(now: Date = new Date(), base: 'created' | 'added' = 'created', commentChar = '#'): string {
  const verb = base === 'added' ? 'Added' : 'Created';
  return `${commentChar} ${verb} by cloud-init v. ${KILN_CLOUD_INIT_VERSION} on ${rfc2822(now)}`;
}

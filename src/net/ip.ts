// IPv4/IPv6 address and prefix helpers for the network parsers and renderers.
import { net } from '../util/on-demand-builtins';

export const isIPv4 = (s: string): boolean => net().isIPv4(s);
export const isIPv6 = (s: string): boolean => net().isIPv6(s);

export function isIpAddress(s: string): boolean {
  return isIPv4(s) || isIPv6(s);
}

/** True for `addr` or `addr/prefix` where addr is IPv4 or IPv6 and the prefix (or IPv4 mask) fits. */
export function isIpNetwork(s: string): boolean {
  const [addr, prefix, ...rest] = s.split('/');
  if (rest.length > 0 || addr === undefined) return false;
  if (prefix === undefined) return isIpAddress(addr);
  if (isIPv4(addr)) return /^\d+$/.test(prefix) ? Number(prefix) <= 32 : maskToPrefix(prefix) !== undefined;
  if (isIPv6(addr)) return /^\d+$/.test(prefix) ? Number(prefix) <= 128 : maskToPrefix(prefix) !== undefined;
  return false;
}

/**
 * Prefix length of a mask; undefined when it is not one (not contiguous ones). 'any' (network configs): a prefix
 * length as it is, a dotted IPv4 mask or an IPv6 mask. 'ipv4' (cloud-init's ipv4_mask_to_net_prefix, what a DHCP
 * lease's subnet-mask goes through): a dotted IPv4 mask or a prefix length of 0-32, as ip_network('0.0.0.0/MASK').
 */
export function maskToPrefix(mask: string, family: 'any' | 'ipv4' = 'any'): number | undefined {
  if (/^\d+$/.test(mask)) return family === 'ipv4' && Number(mask) > 32 ? undefined : Number(mask);
  let bits = '';
  if (isIPv4(mask))
    bits = mask
      .split('.')
      .map((o) => Number(o).toString(2).padStart(8, '0'))
      .join('');
  else if (isIPv6(mask) && family === 'any')
    bits = expandIpv6(mask)
      .split(':')
      .map((h) => parseInt(h, 16).toString(2).padStart(16, '0'))
      .join('');
  else return undefined;
  const m = /^(1*)0*$/.exec(bits);
  return m ? (m[1] as string).length : undefined;
}

export function prefixToIpv4Mask(prefix: number): string {
  const n = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return [24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.');
}

export function expandIpv6(addr: string): string {
  let a = addr;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (v4) {
    const o = (v4[1] as string).split('.').map(Number);
    a = `${a.slice(0, -(v4[1] as string).length)}${(((o[0] ?? 0) << 8) | (o[1] ?? 0)).toString(16)}:${(((o[2] ?? 0) << 8) | (o[3] ?? 0)).toString(16)}`;
  }
  const [head, tail] = a.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const fill = a.includes('::') ? Array(8 - h.length - t.length).fill('0') : [];
  return [...h, ...fill, ...t].map((x) => x.padStart(4, '0')).join(':');
}

/** ADDR (IPv4 or IPv6) as a number, with its width in bits; undefined when it is not an address. */
function addressBits(addr: string): { value: bigint; width: number } | undefined {
  if (isIPv4(addr)) return { value: addr.split('.').reduce((n, o) => (n << 8n) | BigInt(Number(o)), 0n), width: 32 };
  if (isIPv6(addr)) return { value: BigInt(`0x${expandIpv6(addr).replace(/:/g, '')}`), width: 128 };
  return undefined;
}

/**
 * Whether ADDRESS lies in NETWORK (`addr`, `addr/prefix` or `addr/mask`; host bits ignored), as Python's
 * `ip_address(a) in ip_network(n, strict=False)`: false across IPv4 and IPv6, undefined when either is not valid.
 */
export function isIpInNetwork(address: string, network: string): boolean | undefined {
  const [base, prefixText, ...rest] = network.split('/');
  const ip = addressBits(address);
  const net = base === undefined || rest.length > 0 ? undefined : addressBits(base);
  if (!ip || !net) return undefined;
  const prefix = prefixText === undefined ? net.width : maskToPrefix(prefixText);
  if (prefix === undefined || prefix > net.width) return undefined;
  if (ip.width !== net.width) return false;
  const shift = BigInt(net.width - prefix);
  return ip.value >> shift === net.value >> shift;
}

/** cloud-init's `should_add_gateway_onlink_flag`: a gateway outside the subnet ADDRESS (`addr/prefix`) is on-link. */
export function gatewayIsOnLink(gateway: string, address: string): boolean {
  return isIpInNetwork(gateway, address) === false;
}

/**
 * IPv6 ADDR in its shortest form (RFC 5952, as Python's ipaddress writes it): the first longest run of 2+ zero groups
 * becomes `::`.
 */
export function compressIpv6(addr: string): string {
  const groups = expandIpv6(addr)
    .split(':')
    .map((g) => parseInt(g, 16).toString(16));
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < groups.length; ) {
    let j = i;
    while (j < groups.length && groups[j] === '0') j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}

/** The network ADDR lies in with PREFIX bits, as `network/prefix` (IPv4 or IPv6; Python's ip_network(strict=False)). */
export function networkOf(addr: string, prefix: number): string {
  if (isIPv4(addr)) {
    const mask = prefixToIpv4Mask(prefix).split('.').map(Number);
    return `${addr
      .split('.')
      .map((o, i) => Number(o) & (mask[i] as number))
      .join('.')}/${prefix}`;
  }
  const bits = expandIpv6(addr)
    .split(':')
    .map((h) => parseInt(h, 16).toString(2).padStart(16, '0'))
    .join('');
  const masked = bits.slice(0, prefix).padEnd(128, '0');
  const groups = Array.from({ length: 8 }, (_, i) => parseInt(masked.slice(i * 16, i * 16 + 16), 2).toString(16));
  return `${compressIpv6(groups.join(':'))}/${prefix}`;
}

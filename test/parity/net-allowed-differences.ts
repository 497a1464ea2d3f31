// The allow-list of the network parity cases: each known, justified difference between cloud-init 25.1 and kiln
// on a network datasource, with its reason. Keep entries narrow: a test fails on an entry that excused nothing.
import { maskPasswordHashes } from './allowed-differences';
import type { AllowedDifference } from './compare-trees';

/** In the projected instance-data.json (net-view.ts): v1.python_version only. */
function maskPythonVersion(text: string): string {
  return text.replace(/^( +"python_version": )".*"(,?)$/m, '$1"<runtime>"$2');
}

/** In the projected instance-data.json: the line break at the end of each v1.public_ssh_keys entry. */
function trimPublicKeyLineBreaks(text: string): string {
  try {
    const doc = JSON.parse(text) as { v1?: { public_ssh_keys?: unknown } };
    const keys = doc.v1?.public_ssh_keys;
    if (!doc.v1 || !Array.isArray(keys)) return text;
    doc.v1.public_ssh_keys = keys.map((k) => (typeof k === 'string' ? k.replace(/\n+$/, '') : k));
    return `${JSON.stringify(doc, null, 1)}\n`;
  } catch {
    return text;
  }
}

/** In the projected instance-data.json: v1.region emptied (cloud-init's value for the sources that leave it unset). */
function dropRegion(text: string): string {
  try {
    const doc = JSON.parse(text) as { v1?: { region?: unknown } };
    if (!doc.v1) return text;
    doc.v1.region = null;
    return `${JSON.stringify(doc, null, 1)}\n`;
  } catch {
    return text;
  }
}

/**
 * In the projected instance-data.json: v1's availability zone (both spellings) emptied, as cloud-init's Hetzner leaves
 * it.
 */
function dropAvailabilityZone(text: string): string {
  try {
    const doc = JSON.parse(text) as { v1?: Record<string, unknown> };
    if (!doc.v1) return text;
    doc.v1['availability-zone'] = null;
    doc.v1.availability_zone = null;
    return `${JSON.stringify(doc, null, 1)}\n`;
  } catch {
    return text;
  }
}

/** In the projected instance-data.json: ds.meta_data without its `private-networks` list. */
function dropPrivateNetworks(text: string): string {
  try {
    const doc = JSON.parse(text) as { ds?: { meta_data?: Record<string, unknown> } };
    if (!doc.ds?.meta_data || !('private-networks' in doc.ds.meta_data)) return text;
    delete doc.ds.meta_data['private-networks'];
    return `${JSON.stringify(doc, null, 1)}\n`;
  } catch {
    return text;
  }
}

/** In ENI: the `dns {…}` line 25.1 (as 22.4) writes for a v2 interface's nameservers (a Python dict). */
function dropEniPythonDnsLine(text: string): string {
  return text.replace(/^ {4}dns \{.*\n/m, '');
}

/** In ENI: the `inet6 dhcp` stanza cloud-init 25.1's fallback config adds after the interface's `inet dhcp` one. */
function dropFallbackDhcp6(text: string): string {
  return text.replace(/\n# control-alias (\S+)\niface \1 inet6 dhcp\n/, '');
}

/**
 * The version and creation time in the header both write on files they create ("# Created by cloud-init v. 25.1.4 on
 * <date>").
 */
function dropHeaderVersionAndTime(text: string): string {
  return text.replace(/^# Created by cloud-init v\. [\d.]+ on .*$/m, '# Created by cloud-init v. <version> on <time>');
}

/** cloud-init gathers authorized keys in a Python set: their order follows string hashing, not the metadata. */
function sortLines(text: string): string {
  return text.split('\n').filter(Boolean).sort().join('\n');
}

/**
 * The `#cloud-config` line cloud-init repeats at the start of the file it fetched from the kernel command line's URL.
 */
function undoubleCloudConfigHeader(text: string): string {
  return text.replace(/^#cloud-config#cloud-config/, '#cloud-config');
}

export const NET_ALLOWED_DIFFERENCES: AllowedDifference[] = [
  {
    path: /^\/run\/cloud-init\/instance-data\.json(@init-local)?$/,
    kinds: [],
    normalize: maskPythonVersion,
    reason:
      'v1.python_version names the interpreter (Python 3.13 for cloud-init 25.1, the Node runtime kiln is built on); every other v1 key and the ds block are compared',
  },
  {
    path: /^\/run\/cloud-init\/instance-data\.json(@init-local)?$/,
    kinds: [],
    normalize: trimPublicKeyLineBreaks,
    seeds: /openstack/,
    reason:
      "cloud-init 25.1 (as 22.4) lists OpenStack's public_keys values in v1.public_ssh_keys as meta_data.json gives them, a key's final line break included (normalize_pubkey_data does not strip); kiln lists each key without it. The same keys reach authorized_keys on both sides, and ds.meta_data keeps the raw values on both",
  },
  {
    path: /^\/run\/cloud-init\/instance-data\.json(@init-local)?$/,
    kinds: [],
    normalize: dropRegion,
    seeds: /digitalocean|hetzner/,
    reason:
      "cloud-init 25.1's (as 22.4's) DigitalOcean and Hetzner leave v1.region null (only their availability zone is set, from the metadata's region); kiln also names the region as v1.region (docs/datasources.md, 'Each source against cloud-init'). v1.availability_zone and the ds block are compared",
  },
  {
    path: /^\/run\/cloud-init\/instance-data\.json(@init-local)?$/,
    kinds: [],
    normalize: dropAvailabilityZone,
    seeds: /hetzner/,
    reason:
      "cloud-init 25.1's (as 22.4's) Hetzner sets no availability zone; kiln takes v1.availability_zone from the metadata's availability-zone (docs/datasources.md). The metadata itself is compared in ds.meta_data",
  },
  {
    path: /^\/run\/cloud-init\/instance-data\.json(@init-local)?$/,
    kinds: [],
    normalize: dropPrivateNetworks,
    seeds: /hetzner/,
    reason:
      "kiln reads Hetzner's metadata/private-networks into ds.meta_data['private-networks'], which no cloud-init release up to 25.1 fetches (25.1's Hetzner source has no private-networks). The private networks are not in the rendered network on either side",
  },
  {
    path: /^\/etc\/network\/interfaces\.d\/50-cloud-init(@init-local)?$/,
    kinds: [],
    normalize: dropEniPythonDnsLine,
    seeds: /vmware/,
    reason:
      "cloud-init 25.1 (as 22.4) writes a v2 interface's DNS in ENI as a Python dict (`dns {'nameservers': [...]}`), which ifupdown cannot read; kiln leaves the broken line out, the dns-nameservers line carries the same (docs/network.md; the same entry as test/parity/allowed-differences.ts)",
  },
  {
    path: /^\/etc\/shadow$/,
    kinds: [],
    normalize: maskPasswordHashes,
    seeds: /exoscale|cloudstack/,
    reason:
      "the password server's password is hashed with a random salt (both sides hand it to chpasswd, which picks yescrypt on trixie); the user, the change date and the no-expiry fields are still compared, and the case's expectations check a hash was set",
  },
  {
    path: /^\/etc\/cloud\/cloud\.cfg\.d\/91_kernel_cmdline_url\.cfg$/,
    kinds: [],
    normalize: undoubleCloudConfigHeader,
    seeds: /maas-cmdline-url/,
    reason:
      "cloud-init 25.1 (as 22.4) sniffs the answer's first 13 bytes for `#cloud-config` after readurl has already read the whole body (to log its length), so it writes those bytes twice (`#cloud-config#cloud-config` on the first line, still a YAML comment); kiln writes the answer as served. The rest of the file and its mode (0600) are compared",
  },
  {
    path: /^\/etc\/network\/interfaces\.d\/50-cloud-init(@init-local)?$/,
    kinds: [],
    normalize: dropFallbackDhcp6,
    seeds: /gce-local|ovf-seed-dir|nocloud-seedfrom-http|nocloud-net-cmdline|maas|cloudstack|exoscale|aliyun|bigstep/,
    reason:
      "cloud-init 25.1's fallback config asks for DHCPv6 beside DHCPv4 (ENI's `iface eth0 inet6 dhcp`); kiln's stays DHCPv4-only on purpose, as ifupdown's dhclient -6 never gives up without a DHCPv6 server and hangs networking on IPv4-only networks (canonical/cloud-init#5380; docs/network.md, 'Where kiln differs from cloud-init 25.1 on purpose'). The rest of the file is compared",
  },
  {
    path: /^\/etc\/sudoers\.d\/90-cloud-init-users$/,
    kinds: [],
    normalize: dropHeaderVersionAndTime,
    reason:
      "the header carries the time the file was written (the two sides run at different times) and the writer's version: kiln names the release its boot follows as a whole (KILN_CLOUD_INIT_VERSION), as the whole-tree allow-list does",
  },
  {
    path: /^\/(root|home\/[^/]+)\/\.ssh\/authorized_keys$/,
    kinds: [],
    normalize: sortLines,
    reason:
      "cloud-init 25.1 (as 22.4) collects the keys in a Python set, so their order follows string hashing (the harness fixes PYTHONHASHSEED to 2, whose order differs from the metadata's in the Ec2 case, so this entry is exercised on every run); kiln keeps the metadata's order. The same keys with the same options are compared",
  },
];

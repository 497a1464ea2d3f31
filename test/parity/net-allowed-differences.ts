// The allow-list of the network parity cases: each known, justified difference between cloud-init 22.4 and kiln
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

/** The creation time in the header both write on files they create ("# Created by cloud-init v. 22.4.2 on <date>"). */
function dropHeaderTime(text: string): string {
  return text.replace(/^(# Created by cloud-init v\. [\d.]+) on .*$/m, '$1 on <time>');
}

/** cloud-init gathers authorized keys in a Python set: their order follows string hashing, not the metadata. */
function sortLines(text: string): string {
  return text.split('\n').filter(Boolean).sort().join('\n');
}

export const NET_ALLOWED_DIFFERENCES: AllowedDifference[] = [
  {
    path: /^\/run\/cloud-init\/instance-data\.json(@init-local)?$/,
    kinds: [],
    normalize: maskPythonVersion,
    reason: 'v1.python_version names the interpreter (Python 3.11 for cloud-init, the Node runtime kiln is built on); every other v1 key and the ds block are compared',
  },
  {
    path: /^\/run\/cloud-init\/instance-data\.json(@init-local)?$/,
    kinds: [],
    normalize: trimPublicKeyLineBreaks,
    seeds: /openstack/,
    reason: "cloud-init 22.4 lists OpenStack's public_keys values in v1.public_ssh_keys as meta_data.json gives them, a key's final line break included (normalize_pubkey_data does not strip); kiln lists each key without it. The same keys reach authorized_keys on both sides, and ds.meta_data keeps the raw values on both",
  },
  {
    path: /^\/etc\/shadow$/,
    kinds: [],
    normalize: maskPasswordHashes,
    seeds: /exoscale/,
    reason: "the password server's password is hashed with a random salt (both sides hand it to chpasswd, which picks yescrypt on bookworm); the user, the change date and the no-expiry fields are still compared, and the case's expectations check a hash was set",
  },
  {
    path: /^\/etc\/sudoers\.d\/90-cloud-init-users$/,
    kinds: [],
    normalize: dropHeaderTime,
    reason: 'the header carries the time the file was written; the two sides run at different times',
  },
  {
    path: /^\/(root|home\/[^/]+)\/\.ssh\/authorized_keys$/,
    kinds: [],
    normalize: sortLines,
    reason: "cloud-init 22.4 collects the keys in a Python set, so their order follows string hashing (the harness fixes PYTHONHASHSEED to 2, whose order differs from the metadata's in the Ec2 case, so this entry is exercised on every run); kiln keeps the metadata's order. The same keys with the same options are compared",
  },
];

// What the network parity cases compare of a finished root: instance-data.json's v1 keys and ds metadata, the
// hostname, users and their keys, the rendered network, the found datasource's name (status.json and
// previous-datasource) and the config fetched from the kernel command line's URL, taken once after init-local and once
// after all stages.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Tree } from './tree-snapshot';
import { readEntry } from './tree-snapshot';

/** Files whose entry (mode, owner, content) is compared when either side has them. */
export const VIEW_FILES = [
  '/run/cloud-init/instance-data.json',
  '/var/lib/cloud/data/status.json',
  '/var/lib/cloud/data/previous-datasource',
  '/etc/hostname',
  '/etc/hosts',
  '/etc/passwd',
  '/etc/group',
  '/etc/shadow',
  '/etc/sudoers.d/90-cloud-init-users',
  '/etc/network/interfaces.d/50-cloud-init',
  '/etc/netplan/50-cloud-init.yaml',
  '/etc/systemd/network/10-cloud-init-eth0.network',
  '/etc/udev/rules.d/70-persistent-net.rules',
  '/root/.ssh',
  '/root/.ssh/authorized_keys',
  // The kernel command line's cloud-config-url, kept by the init stages (absent on both sides unless a case gives one).
  '/etc/cloud/cloud.cfg.d/91_kernel_cmdline_url.cfg',
];

/** Files init-local must already have written: what the source found, and the network rendered before it starts. */
export const INIT_LOCAL_FILES = [
  '/run/cloud-init/instance-data.json',
  '/var/lib/cloud/data/status.json',
  '/var/lib/cloud/data/previous-datasource',
  '/etc/network/interfaces.d/50-cloud-init',
  '/etc/netplan/50-cloud-init.yaml',
  '/etc/udev/rules.d/70-persistent-net.rules',
];

/** The suffix marking a view entry taken right after init-local. */
export const AFTER_INIT_LOCAL = '@init-local';

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  return value;
}

/**
 * instance-data.json reduced to what a datasource decides: the v1 keys and the ds block (its crawled metadata)
 * without ds._doc. sys_info and merged_cfg describe the machine and the config, not the source, and the
 * top-level copies of v1 keys repeat v1.
 */
export function projectInstanceData(text: string): string {
  try {
    const doc = JSON.parse(text) as { v1?: unknown; ds?: Record<string, unknown> };
    const ds = { ...(doc.ds ?? {}) };
    delete ds._doc;
    return `${JSON.stringify(sortKeys({ v1: doc.v1 ?? null, ds }), null, 1)}\n`;
  } catch {
    return text;
  }
}

/** status.json reduced to the name of the datasource found (the rest is times and per-module errors). */
export function projectStatus(text: string): string {
  try {
    const doc = JSON.parse(text) as { v1?: { datasource?: unknown } };
    return `${JSON.stringify({ v1: { datasource: doc.v1?.datasource ?? null } }, null, 1)}\n`;
  } catch {
    return text;
  }
}

/** The view entries of ROOT (paths suffixed with SUFFIX): VIEW_FILES or FILES, plus every /home/<user>/.ssh. */
export function snapshotView(root: string, files: string[] = VIEW_FILES, suffix = ''): Tree {
  const paths = [...files];
  if (files === VIEW_FILES && existsSync(join(root, 'home'))) {
    for (const user of readdirSync(join(root, 'home')).sort())
      paths.push(`/home/${user}/.ssh`, `/home/${user}/.ssh/authorized_keys`);
  }
  const view: Tree = new Map();
  for (const path of paths) {
    if (!existsSync(join(root, path))) continue;
    const entry = readEntry(join(root, path));
    const project = path.endsWith('/instance-data.json')
      ? projectInstanceData
      : path.endsWith('/status.json')
        ? projectStatus
        : undefined;
    if (project && entry.text !== undefined) {
      entry.text = project(entry.text);
      entry.sha256 = createHash('sha256').update(entry.text).digest('hex');
    }
    view.set(`${path}${suffix}`, entry);
  }
  return view;
}

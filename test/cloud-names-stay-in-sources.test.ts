// A cloud is known only in its datasource: its name and its network format's name (both read from the registry)
// appear in the code of src/net/, src/runner/, src/cli/ and src/metadata-server/ only where ALLOWED says why.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { DATASOURCES, WINDOWS_ONLY_SOURCES } from '../src/sources/registry';
import { REPO } from './helpers/repo';

const ROOT = REPO;
const FOLDERS = ['src/net', 'src/runner', 'src/cli', 'src/metadata-server'];

/** File → the cloud names it may hold, and why. Keep it short: a new entry needs a reason of this kind. */
const ALLOWED: Record<string, { names: string[]; why: string }> = {
  'src/net/parse-network-config.ts': {
    names: ['openstack'],
    why: "network_data.json is net/'s own format (OpenStack, ConfigDrive and IBMCloud give it; cloud-init's net-convert reads it), named 'openstack'",
  },
  'src/net/select-network-config.ts': { names: ['openstack'], why: 'the same format name' },
  'src/runner/default-deps.ts': {
    names: ['azure'],
    why: "the wiring of the real deps: cloud-init's hyperv reporting handler (the KVP sink, which Azure's source writes too) is handed to the runner here, as the registry is",
  },
  'src/runner/cloud-id.ts': {
    names: ['azure'],
    why: "cloud-init's canonical_cloud_id: azure-china and azure-gov by region",
  },
  'src/cli/cloud-id.ts': {
    names: ['nocloud', 'openstack'],
    why: "the command's summary gives cloud-init's cloud ids as examples",
  },
  'src/cli/cloudbase-init-run.ts': {
    names: ['configdrive'],
    why: "cloudbase-init's logger name for the config-drive reader (configdrive.py)",
  },
  'src/cli/devel-net-convert.ts': {
    names: ['azure', 'ec2', 'openstack', 'vmware'],
    why: "cloud-init's net-convert --kind names (network_data.json is net/'s 'openstack') (azure-imds, vmware-imc; ec2 is kiln's); ec2 and vmware-imc are resolved through the registry",
  },
  'src/cli/make-seed.ts': {
    names: ['configdrive', 'nocloud', 'openstack'],
    why: "the seed kinds kiln writes (cloud-init's NoCloud and ConfigDrive media); not moved yet, frozen",
  },
};

function codeOf(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : n.endsWith('.ts') ? [p] : [];
  });
}

test('cloud names stay in sources/ (and the few places ALLOWED gives a reason for)', () => {
  const names = new Set<string>();
  for (const s of [...DATASOURCES, ...WINDOWS_ONLY_SOURCES]) {
    if (s.name !== 'None') names.add(s.name.toLowerCase());
    if (s.networkFormat) names.add(s.networkFormat.name.toLowerCase().split('-')[0] as string);
  }
  const word = new RegExp(`\\b(${[...names].join('|')})\\b`, 'gi');
  const found: string[] = [];
  const seen = new Set<string>();
  for (const folder of FOLDERS) {
    for (const file of files(join(ROOT, folder))) {
      seen.add(relative(ROOT, file));
      const rel = relative(ROOT, file);
      const hits = new Set(
        [...codeOf(readFileSync(file, 'utf8')).matchAll(word)].map((m) => (m[1] as string).toLowerCase()),
      );
      const allowed = new Set(ALLOWED[rel]?.names ?? []);
      for (const h of hits) if (!allowed.has(h)) found.push(`${rel}: ${h}`);
      for (const a of allowed)
        if (!hits.has(a)) found.push(`${rel}: ${a} is allowed but no longer there: take it off ALLOWED`);
    }
  }
  for (const rel of Object.keys(ALLOWED)) if (!seen.has(rel)) found.push(`${rel}: in ALLOWED but gone`);
  assert.deepEqual(
    found,
    [],
    'a cloud is known in its datasource only: move this into its source (or give the reason in ALLOWED)',
  );
});

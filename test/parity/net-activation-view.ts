// What a network parity case that activates interfaces compares beyond files: the ci-info tables the init stage
// printed, the datasource status.json names, and the machine's addresses after the stages (each a text entry).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tree, TreeEntry } from './tree-snapshot';

function textEntry(text: string): TreeEntry {
  return {
    type: 'file',
    mode: 0o644,
    uid: 0,
    gid: 0,
    size: Buffer.byteLength(text),
    sha256: createHash('sha256').update(text).digest('hex'),
    text,
  };
}

/**
 * The network tables the init stage printed: the `ci-info:` lines from the `Net device info` header to the last route
 * table's end.
 */
export function ciInfoTables(output: string): string {
  const lines = output.split('\n');
  const start = lines.findIndex((l) => /^ci-info: \++Net device info\++$/.test(l));
  if (start < 0) return '(no ci-info Net device info table printed)\n';
  const block: string[] = [];
  for (const l of lines.slice(start)) {
    if (!l.startsWith('ci-info: ')) break;
    block.push(l);
  }
  return `${block.join('\n')}\n`;
}

/** `ip -o addr show` without lifetimes (they count down) and DAD states (timing): device, family, address, scope. */
export function normalizeAddresses(text: string): string {
  return `${text
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const m = /^\d+:\s+(\S+)\s+(inet6?)\s+(\S+)(?:.*?\sscope\s+(\S+))?/.exec(l);
      return m ? `${m[1]?.split('@')[0]} ${m[2]} ${m[3]} scope ${m[4] ?? '?'}` : l;
    })
    .sort()
    .join('\n')}\n`;
}

export const CI_INFO_ENTRY = 'ci-info tables (init stage output)';
export const ADDRESSES_ENTRY = 'machine addresses after the stages (ip -o addr)';

/**
 * What an activating case's side must show so that matching views prove something: the tables printed, EXPECTED
 * addresses held.
 */
export function unmetActivation(view: Tree, expected: string[]): string[] {
  const unmet: string[] = [];
  if (!view.get(CI_INFO_ENTRY)?.text?.includes('Net device info'))
    unmet.push('the init stage printed no ci-info Net device info table');
  const addresses = view.get(ADDRESSES_ENTRY)?.text?.split('\n') ?? [];
  for (const line of expected)
    if (!addresses.includes(line)) unmet.push(`the machine lacks '${line}' after the stages`);
  return unmet;
}

export function activationView(root: string, initOutput: string, addresses: string): Tree {
  const view: Tree = new Map();
  view.set(CI_INFO_ENTRY, textEntry(ciInfoTables(initOutput)));
  const status = join(root, 'run/cloud-init/status.json');
  const datasource = existsSync(status)
    ? String((JSON.parse(readFileSync(status, 'utf8')) as { v1?: { datasource?: unknown } }).v1?.datasource)
    : '(no status.json)';
  view.set('status.json v1.datasource', textEntry(`${datasource}\n`));
  view.set(ADDRESSES_ENTRY, textEntry(normalizeAddresses(addresses)));
  return view;
}

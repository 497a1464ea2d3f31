// status.json and result.json in cloud-init's v1 shape: one record per stage with start, finished and errors.
import { posix } from 'node:path';
import type { Platform } from '../platform/platform';
import type { CloudPaths } from './cloud-paths';
import { sortedJson } from './sorted-json';

export type StageName = 'init-local' | 'init' | 'modules-config' | 'modules-final';
export const STAGE_NAMES: StageName[] = ['init-local', 'init', 'modules-config', 'modules-final'];

/** Problems that did not stop anything, by level: {"WARNING": ["…"], "ERROR": ["…"]}. */
export type RecoverableErrors = Record<string, string[]>;

export interface StageRecord {
  /** Unix time in seconds (float), as cloud-init writes it; null until the stage starts or ends. */
  start: number | null;
  finished: number | null;
  /** Module failures and stage failures, as cloud-init lists them: any entry makes `status` report error (exit 1). */
  errors: string[];
  recoverable_errors: RecoverableErrors;
  /** kiln: per-module outcome and seconds, for `analyze` and people. */
  modules?: Array<{ name: string; outcome: 'ran' | 'skipped' | 'failed'; seconds: number; reason?: string }>;
}

export interface StatusV1 {
  datasource: string | null;
  stage: StageName | null;
  'init-local': StageRecord;
  init: StageRecord;
  'modules-config': StageRecord;
  'modules-final': StageRecord;
  /** The last time anything was written (seconds). */
  last_update?: number;
}

export interface StatusFile {
  v1: StatusV1;
}

export interface ResultFile {
  v1: { datasource: string | null; errors: string[] };
}

export function emptyStage(): StageRecord {
  return { start: null, finished: null, errors: [], recoverable_errors: {} };
}

export function emptyStatus(): StatusFile {
  return {
    v1: {
      datasource: null,
      stage: null,
      'init-local': emptyStage(),
      init: emptyStage(),
      'modules-config': emptyStage(),
      'modules-final': emptyStage(),
    },
  };
}

function asStage(value: unknown): StageRecord {
  const rec = (value ?? {}) as Partial<StageRecord>;
  return {
    ...rec,
    start: typeof rec.start === 'number' ? rec.start : null,
    finished: typeof rec.finished === 'number' ? rec.finished : null,
    errors: Array.isArray(rec.errors) ? rec.errors.map(String) : [],
    recoverable_errors:
      rec.recoverable_errors && typeof rec.recoverable_errors === 'object' ? rec.recoverable_errors : {},
  };
}

/** Reads status.json; undefined when it does not exist. A corrupt file is read as empty (a crashed writer). */
export async function readStatusFile(platform: Platform, paths: CloudPaths): Promise<StatusFile | undefined> {
  const text = await platform.readTextIfExists(paths.statusFile);
  if (text === undefined) return undefined;
  let parsed: { v1?: Record<string, unknown> };
  try {
    parsed = JSON.parse(text) as { v1?: Record<string, unknown> };
  } catch {
    return emptyStatus(); // a status file that is not JSON starts over empty, as it is rewritten now
  }
  const v1 = parsed.v1 ?? {};
  const out = emptyStatus();
  out.v1.datasource = typeof v1.datasource === 'string' ? v1.datasource : null;
  out.v1.stage = typeof v1.stage === 'string' ? (v1.stage as StageName) : null;
  if (typeof v1.last_update === 'number') out.v1.last_update = v1.last_update;
  for (const s of STAGE_NAMES) out.v1[s] = asStage(v1[s]);
  return out;
}

/**
 * Writes FILE in /var/lib/cloud/data and points LINK in /run/cloud-init at it with a relative link, as cloud-init does.
 */
async function writeLinked(platform: Platform, file: string, link: string, text: string): Promise<void> {
  await platform.writeFile(file, text, { mode: 0o644 });
  await platform.symlink(posix.relative(posix.dirname(link), file), link);
}

/**
 * status.json as cloud-init 25.1 writes it (the four stages the units run, each with its `recoverable_errors`; no
 * empty `modules-init` record, which 22.4 kept), plus kiln's per-module `modules` records.
 */
export async function writeStatusFile(platform: Platform, paths: CloudPaths, status: StatusFile): Promise<void> {
  const { last_update: _unused, ...v1 } = status.v1;
  const doc = { v1 };
  await writeLinked(platform, paths.statusDataFile, paths.statusFile, sortedJson(doc));
}

export function mergeRecoverable(into: RecoverableErrors, from: RecoverableErrors): RecoverableErrors {
  for (const [level, list] of Object.entries(from)) into[level] = [...(into[level] ?? []), ...list];
  return into;
}

/**
 * result.json: written when the final stage ends, every stage's errors together; as 25.1's status_wrapper, only the
 * datasource and the errors (the recoverable ones stay in status.json).
 */
export function resultFrom(status: StatusFile): ResultFile {
  const errors: string[] = [];
  for (const s of STAGE_NAMES) errors.push(...status.v1[s].errors);
  return { v1: { datasource: status.v1.datasource, errors } };
}

export async function writeResultFile(platform: Platform, paths: CloudPaths, status: StatusFile): Promise<void> {
  await writeLinked(platform, paths.resultDataFile, paths.resultFile, sortedJson(resultFrom(status)));
}

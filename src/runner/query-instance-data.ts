// What `cloud-init query` reads and how it looks a key up: instance data plus user and vendor data for root.
import type { Platform } from '../platform/platform';
import { jinjaVariables } from '../userdata/jinja-context';
import { renderJinja } from '../userdata/jinja-render';
import { KilnError } from '../util/errors';
import type { CloudPaths } from './cloud-paths';

export class QueryError extends KilnError {
  override readonly name = 'QueryError';
}

export interface QuerySourceOptions {
  platform: Platform;
  paths: CloudPaths;
  /** Root reads instance-data-sensitive.json and the user data; others read the redacted file. */
  privileged: boolean;
  instanceDataFile?: string | undefined;
  userDataFile?: string | undefined;
  vendorDataFile?: string | undefined;
  /** Reads a file named on the command line (host path, not under the root). */
  readHostFile(path: string): Promise<string>;
}

export async function loadQueryData(o: QuerySourceOptions): Promise<Record<string, unknown>> {
  let text: string | undefined;
  let file: string;
  if (o.instanceDataFile) {
    file = o.instanceDataFile;
    text = await o.readHostFile(file).catch(() => undefined);
  } else {
    file = o.privileged ? o.paths.instanceDataSensitiveFile : o.paths.instanceDataFile;
    text = await o.platform.readTextIfExists(file);
    if (text === undefined && o.privileged) {
      file = o.paths.instanceDataFile;
      text = await o.platform.readTextIfExists(file);
    }
  }
  if (text === undefined) throw new QueryError(`Missing instance-data file: ${file}. Has cloud-init run yet? ('cloud-init status' tells)`);
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new QueryError(`${file}: not valid JSON: ${(err as Error).message}`);
  }
  // As cloud-init's query (convert_jinja_instance_data): the v1 keys are reachable at the top level too.
  const v1 = doc.v1;
  if (v1 && typeof v1 === 'object' && !Array.isArray(v1)) for (const [k, v] of Object.entries(v1)) if (!(k in doc)) doc[k] = v;
  const blob = async (given: string | undefined, name: string): Promise<string | undefined> => {
    if (given) return o.readHostFile(given).catch(() => undefined);
    if (!o.privileged) return undefined;
    return o.platform.readTextIfExists(`${o.paths.instanceLink}/${name}`);
  };
  const user = await blob(o.userDataFile, 'user-data.txt');
  const vendor = await blob(o.vendorDataFile, 'vendor-data.txt');
  doc.userdata = user ?? (o.privileged ? '' : '<redacted for non-root user> file:user-data.txt');
  doc.vendordata = vendor ?? (o.privileged ? '' : '<redacted for non-root user> file:vendor-data.txt');
  if (o.privileged) {
    const combined = await o.platform.readTextIfExists(o.paths.combinedCloudConfigFile);
    if (combined) doc.combined_cloud_config = JSON.parse(combined) as unknown;
  }
  return doc;
}

/** Looks up 'v1.cloud_name' or 'ds.meta_data.instance-id'; hyphens and underscores are interchangeable, as in cloud-init. */
export function lookupKey(doc: unknown, varname: string): { found: boolean; value: unknown } {
  let cur: unknown = doc;
  for (const part of varname.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return { found: false, value: undefined };
    const rec = cur as Record<string, unknown>;
    const key = part in rec ? part : part.replace(/-/g, '_') in rec ? part.replace(/-/g, '_') : part.replace(/_/g, '-');
    if (!(key in rec)) return { found: false, value: undefined };
    cur = rec[key];
  }
  return { found: true, value: cur };
}

export function formatValue(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value, sortedReplacer, 4);
}

function sortedReplacer(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Renders a --format template with kiln's jinja subset over the instance data (cloud-init's key aliases included). */
export function renderQueryTemplate(template: string, doc: Record<string, unknown>): string {
  return renderJinja(template, jinjaVariables(doc));
}

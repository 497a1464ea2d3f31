// What `cloud-init query` reads and how it looks a key up: instance data plus user and vendor data for root.
import type { Platform } from '../platform/platform';
import { jinjaVariables } from '../userdata/jinja-context';
import { renderJinja } from '../userdata/jinja-render';
import { describeError, KilnError } from '../util/errors';
import type { CloudPaths } from './cloud-paths';
import { REDACT_SENSITIVE_VALUE } from './instance-data';
import { pythonJson } from './sorted-json';

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
  /** Told when root falls back to the redacted file, in cloud-init's words. */
  warn(message: string): void;
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
      o.warn(`Missing root-readable ${file}. Using redacted ${o.paths.instanceDataFile} instead.`);
      file = o.paths.instanceDataFile;
      text = await o.platform.readTextIfExists(file);
    }
  }
  if (text === undefined) throw new QueryError(`Missing instance-data file: ${file}`);
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new QueryError(`${file}: not valid JSON: ${describeError(err)}`);
  }
  // As cloud-init's query (convert_jinja_instance_data): the v1 keys are reachable at the top level too.
  const v1 = doc.v1;
  if (v1 && typeof v1 === 'object' && !Array.isArray(v1))
    for (const [k, v] of Object.entries(v1)) if (!(k in doc)) doc[k] = v;
  // As _read_instance_data: root gets the files' contents ('' for a missing one, null for a combined config not yet
  // written); others get each file's name after REDACT_SENSITIVE_VALUE.
  const userFile = o.userDataFile ?? `${o.paths.instanceLink}/user-data.txt`;
  const vendorFile = o.vendorDataFile ?? `${o.paths.instanceLink}/vendor-data.txt`;
  if (!o.privileged) {
    const redacted = (path: string) => `<${REDACT_SENSITIVE_VALUE}> file:${path}`;
    doc.userdata = redacted(userFile);
    doc.vendordata = redacted(vendorFile);
    doc.combined_cloud_config = redacted(o.paths.combinedCloudConfigFile);
    return doc;
  }
  const read = (given: string | undefined, path: string): Promise<string | undefined> =>
    given ? o.readHostFile(given).catch(() => undefined) : o.platform.readTextIfExists(path);
  doc.userdata = (await read(o.userDataFile, userFile)) ?? '';
  doc.vendordata = (await read(o.vendorDataFile, vendorFile)) ?? '';
  const combined = await o.platform.readTextIfExists(o.paths.combinedCloudConfigFile);
  doc.combined_cloud_config = combined ? (JSON.parse(combined) as unknown) : null;
  return doc;
}

/**
 * Looks up 'v1.cloud_name' or 'ds.meta_data.instance-id'; hyphens and underscores are interchangeable, as in
 * cloud-init. A miss says what cloud-init's query says: the whole key when its first part is unknown, else the walked
 * path and the part it lacks.
 */
export function lookupKey(
  doc: unknown,
  varname: string,
): { found: true; value: unknown } | { found: false; message: string } {
  let cur: unknown = doc;
  const walked: string[] = [];
  for (const part of varname.split('.')) {
    const rec = cur !== null && typeof cur === 'object' && !Array.isArray(cur) ? (cur as Record<string, unknown>) : {};
    const key = part in rec ? part : part.replace(/-/g, '_') in rec ? part.replace(/-/g, '_') : part.replace(/_/g, '-');
    if (!(key in rec)) {
      const message = walked.length
        ? `instance-data '${walked.join('.')}' has no '${part}'`
        : `Undefined instance-data key '${varname}'`;
      return { found: false, message };
    }
    cur = rec[key];
    walked.push(part);
  }
  return { found: true, value: cur };
}

/** A string as it is; anything else as cloud-init's json_dumps writes it (sorted keys, indent 1, ASCII only). */
export function formatValue(value: unknown): string {
  if (typeof value === 'string') return value;
  return pythonJson(value);
}

/** Renders a --format template with kiln's jinja subset over the instance data (cloud-init's key aliases included). */
export function renderQueryTemplate(template: string, doc: Record<string, unknown>): string {
  return renderJinja(template, jinjaVariables(doc));
}

// User data, vendor data and vendor data 2 in; typed cloud-config, scripts and per-part errors out.
import type { Log } from '../util/log';
import { bytesToText, decodeBase64, decodeQuotedPrintable, gunzipBytes, isGzip } from './decode';
import { TemplateError } from './errors';
import { httpIncludeFetcher, type FetchInclude } from './fetch-include';
import { jinjaVariables } from './jinja-context';
import { missingJinjaWarning, renderJinja } from './jinja-render';
import { applyJsonPatch } from './json-patch';
import { readYaml, YamlError } from '../config/read-yaml';
import { mergeCloudConfigPart, mergeManyConfigs } from './merge-config';
import {
  entityFilename,
  header,
  looksLikeMime,
  looksLikeMimeWithoutVersion,
  parseMime,
  type MimeEntity,
  type MimeHeader,
} from './mime';
import { CT, GZIP_TYPES, TYPE_NEEDED, typeFromStartsWith } from './part-types';
import { emptyProcessedPart, replaceHeader, type ProcessedPart } from './processed-message';
import { decodeUtf8Strict } from '../util/utf8-text';
import { describeError } from '../util/errors';

export type DataSource = 'user' | 'vendor' | 'vendor2';
export type ScriptFrequency = 'per-instance' | 'per-boot' | 'per-once';

/**
 * A script to run: user scripts land in instances/<iid>/scripts, vendor ones in scripts/vendor, per-* ones in
 * /var/lib/cloud/scripts/<freq>.
 */
export interface ScriptPart {
  name: string;
  source: DataSource;
  frequency: ScriptFrequency;
  /** 'script' (text/x-shellscript*), 'boothook', 'part-handler'. */
  kind: 'script' | 'boothook' | 'part-handler';
  contentType: string;
  /**
   * Set when the MIME type itself named the frequency (text/x-shellscript-per-*): such scripts go to
   * /var/lib/cloud/scripts/<freq>.
   */
  frequencyFromType: boolean;
  content: Uint8Array;
  /** Position among all parts processed (vendor, vendor2, then user), for part handlers. */
  order: number;
}

/** A part of a type no built-in handler takes; a `#part-handler` listed after it may (see runPartHandlers). */
export interface CustomPart {
  source: DataSource;
  name: string;
  contentType: string;
  headers: Record<string, string>;
  content: Uint8Array;
  order: number;
}

export interface PartError {
  /** `user-data part-002`, `vendor-data cfg.yaml`, `user-data include http://…` */
  part: string;
  message: string;
}

/** One leaf part after splitting, for listings and tests. */
export interface PartSummary {
  source: DataSource;
  name: string;
  contentType: string;
  bytes: number;
}

export interface ProcessedUserData {
  /** User cloud-config merged over vendor data 2 over vendor data (cloud-init's order). */
  cloudConfig: Record<string, unknown>;
  userCloudConfig: Record<string, unknown>;
  vendorCloudConfig: Record<string, unknown>;
  vendor2CloudConfig: Record<string, unknown>;
  scripts: ScriptPart[];
  boothooks: ScriptPart[];
  partHandlers: ScriptPart[];
  /** Parts of types no built-in handler takes (also listed in `ignored`), with their content for part handlers. */
  customParts: CustomPart[];
  parts: PartSummary[];
  /** Parts of a type nobody handles (text/plain …): logged, never fatal. */
  ignored: Array<{ part: string; contentType: string }>;
  errors: PartError[];
  /** Per source given: the parts as cloud-init attaches them to its processed message (for user-data.txt.i). */
  processed: Partial<Record<DataSource, ProcessedPart[]>>;
}

export interface IncludeCache {
  get(url: string): Promise<Uint8Array | undefined>;
  set(url: string, data: Uint8Array): Promise<void>;
}

export interface ProcessOptions {
  /** instance-data.json's content (v1, ds, merged_cfg …) for `## template: jinja` parts. */
  instanceData?: Record<string, unknown>;
  /** Fetches #include URLs; default: http(s) with a 10 s deadline and a 16 MiB cap. */
  fetchInclude?: FetchInclude;
  /** Where #include-once keeps what it fetched (cloud-init: instance/urlcache); default per call. */
  includeOnceCache?: IncludeCache;
  log?: Log;
  /** Parts with a Launch-Index header other than this are dropped (EC2 launch index). */
  launchIndex?: number;
  /** Largest single part (and largest decompressed gzip); default 32 MiB. */
  maxPartBytes?: number;
  /** Largest whole user data as given; default 256 MiB. */
  maxTotalBytes?: number;
  /** Nesting of #include inside included content; default 10. */
  maxIncludeDepth?: number;
}

export interface UserDataInputs {
  userData?: Uint8Array | string;
  vendorData?: Uint8Array | string;
  vendorData2?: Uint8Array | string;
}

const LABEL: Record<DataSource, string> = { user: 'user-data', vendor: 'vendor-data', vendor2: 'vendor-data2' };

interface Leaf {
  name: string;
  contentType: string;
  headers: MimeHeader[];
  content: Buffer;
}

/** Processes one source (user, vendor or vendor2) into leaves, as cloud-init's UserDataProcessor does. */
class SourceProcessor {
  readonly leaves: Leaf[] = [];
  readonly errors: PartError[] = [];
  /** The parts cloud-init's UserDataProcessor would attach, in order (before jinja rendering, as it keeps them). */
  readonly processed: ProcessedPart[] = [];
  /** Entities that are the whole message (cloud-init's base_msg is the part itself), by how they were made. */
  private readonly roots = new WeakMap<MimeEntity, 'blob' | 'single'>();
  private counter = 0;
  private readonly includeOnceMemory = new Map<string, Uint8Array>();

  constructor(
    private readonly source: DataSource,
    private readonly opts: ProcessOptions,
    private readonly fetchInclude: FetchInclude,
  ) {}

  get label(): string {
    return LABEL[this.source];
  }

  private error(part: string, message: string): void {
    this.errors.push({ part: `${this.label} ${part}`, message });
    this.opts.log?.warn(`${this.label} ${part}: ${message}`);
  }

  private get maxPart(): number {
    return this.opts.maxPartBytes ?? 32 * 1024 * 1024;
  }

  /** cloud-init's convert_string: gunzip a whole blob, then MIME or a single part. */
  async processBlob(data: Uint8Array, where: string, depth: number): Promise<void> {
    let bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    if (isGzip(bytes)) {
      try {
        bytes = await gunzipBytes(bytes, this.maxPart);
      } catch (err) {
        this.error(where, describeError(err));
        return;
      }
    }
    const head = bytes.subarray(0, 4096).toString('latin1');
    if (looksLikeMime(head)) {
      const parsed = parseMime(bytes);
      if (!parsed.contentType.startsWith('multipart/')) this.roots.set(parsed, 'single');
      await this.walk(parsed, where, depth);
      return;
    }
    if (looksLikeMimeWithoutVersion(head)) {
      this.error(
        where === 'message' ? 'MIME message' : where,
        'starts with a multipart Content-Type but has no MIME-Version header, so it is read as one plain-text part (as cloud-init does); add "MIME-Version: 1.0"',
      );
    }
    if (bytes.length > this.maxPart) {
      this.error(
        where,
        `${bytes.length} bytes is larger than the ${this.maxPart}-byte limit for one part; part skipped`,
      );
      return;
    }
    const blob: MimeEntity = {
      headers: [],
      contentType: CT.notMultipart,
      params: {},
      body: bytes,
      parts: [],
      defects: [],
    };
    this.roots.set(blob, 'blob');
    await this.leaf(blob, bytes, depth);
  }

  private async walk(entity: MimeEntity, where: string, depth: number): Promise<void> {
    for (const d of entity.defects) this.error(where === 'message' ? 'MIME message' : where, d);
    if (entity.contentType.startsWith('multipart/')) {
      const li = header(entity, 'launch-index');
      for (const child of entity.parts) {
        // A Launch-Index on the message applies to the parts that carry none (cloud-init's _attach_launch_index).
        if (li !== undefined && header(child, 'launch-index') === undefined)
          child.headers.push({ name: 'Launch-Index', value: li });
        await this.walk(child, where, depth);
      }
      return;
    }
    let body: Buffer;
    const enc = (header(entity, 'content-transfer-encoding') ?? '').toLowerCase().trim();
    const partLabel = () =>
      `part-${String(this.counter + 1).padStart(3, '0')}${entityFilename(entity) ? ` (${entityFilename(entity)})` : ''}`;
    try {
      if (enc === 'base64') body = decodeBase64(entity.body.toString('latin1'));
      else if (enc === 'quoted-printable') body = decodeQuotedPrintable(entity.body.toString('latin1'));
      else body = entity.body;
    } catch (err) {
      this.error(partLabel(), describeError(err));
      this.counter++;
      return;
    }
    if (body.length > this.maxPart) {
      this.error(
        partLabel(),
        `${body.length} bytes is larger than the ${this.maxPart}-byte limit for one part; part skipped`,
      );
      this.counter++;
      return;
    }
    await this.leaf(entity, body, depth);
  }

  /** One non-multipart piece: gzip, type detection, include, archive, jinja, then attach. */
  private async leaf(entity: MimeEntity, raw: Buffer, depth: number): Promise<void> {
    const filename = entityFilename(entity);
    let ctype = entity.contentType;
    let body = raw;
    let wasGzip = false;
    const provisional = () => `part-${String(this.counter + 1).padStart(3, '0')}${filename ? ` (${filename})` : ''}`;
    if (GZIP_TYPES.has(ctype)) {
      try {
        body = await gunzipBytes(body, this.maxPart);
      } catch (err) {
        this.error(provisional(), describeError(err));
        this.counter++;
        return;
      }
      ctype = CT.plain;
      wasGzip = true;
    }
    const charset = entity.params.charset;
    // Parts in another charset (iso-8859-1, utf-16 …) are re-encoded so everything after reads UTF-8.
    if (charset && !/^(utf-?8|us-ascii|ascii)$/i.test(charset) && ctype.startsWith('text/'))
      body = Buffer.from(bytesToText(body, charset), 'utf8');
    const text = () => bytesToText(body);
    // As cloud-init: untyped parts, and shell scripts too, take the type their first line implies.
    if (TYPE_NEEDED.has(ctype) || ctype === CT.shellscript)
      ctype = typeFromStartsWith(body.subarray(0, 128).toString('utf8')) ?? ctype;
    if (ctype !== CT.include && ctype !== CT.includeOnce && ctype !== CT.cloudConfigArchive)
      this.record(entity, ctype, wasGzip ? body : entity.body, wasGzip, filename);
    if (ctype === CT.include || ctype === CT.includeOnce) {
      await this.include(text(), ctype === CT.includeOnce, depth, provisional());
      return;
    }
    if (ctype === CT.cloudConfigArchive) {
      await this.archive(text(), depth, provisional());
      return;
    }
    if (ctype === CT.jinja) {
      const rendered = this.renderTemplate(text(), provisional());
      if (rendered === undefined) {
        this.counter++;
        return;
      }
      // As cloud-init's render_jinja_payload: undefined names are printed as its marker and named in one warning.
      const warning = missingJinjaWarning(filename ?? `part-${String(this.counter + 1).padStart(3, '0')}`, rendered);
      if (warning) this.opts.log?.warn(warning);
      const sub = typeFromStartsWith(rendered);
      const allowed: string[] = [CT.cloudConfig, CT.shellscript, CT.boothook, CT.cloudConfigJsonp];
      if (!sub || !allowed.includes(sub)) {
        this.error(
          provisional(),
          `rendered jinja template is ${sub ?? 'of no known type'}; kiln renders templates into #cloud-config, #cloud-config-jsonp, #! scripts and #cloud-boothook only`,
        );
        this.counter++;
        return;
      }
      body = Buffer.from(rendered, 'utf8');
      ctype = sub;
    }
    this.attach(entity, ctype, body, filename);
  }

  /**
   * The part as cloud-init's _process_msg and _attach_part leave it: Content-Type replaced when it changed, a filename.
   */
  private record(
    entity: MimeEntity,
    ctype: string,
    body: Buffer,
    wasGzip: boolean,
    filename: string | undefined,
  ): void {
    const root = this.roots.get(entity);
    let headers: MimeHeader[];
    if (root === 'blob') headers = [{ name: 'MIME-Version', value: '1.0' }];
    else if (wasGzip) {
      // A decompressed part is rebuilt as a new MIMENonMultipart keeping only its filename and Launch-Index.
      headers = [
        { name: 'Content-Type', value: CT.plain },
        { name: 'MIME-Version', value: '1.0' },
      ];
      if (filename) headers.push({ name: 'Content-Disposition', value: `attachment; filename="${filename}"` });
      const li = header(entity, 'launch-index');
      if (li !== undefined) headers.push({ name: 'Launch-Index', value: li });
    } else headers = [...entity.headers];
    const origType = wasGzip ? CT.plain : entity.contentType;
    if (root !== undefined || ctype !== origType || !headers.some((h) => h.name.toLowerCase() === 'content-type'))
      headers = replaceHeader(headers, 'Content-Type', ctype);
    if (!filename)
      headers = replaceHeader(
        headers,
        'Content-Disposition',
        `attachment; filename="part-${String(this.processed.length + 1).padStart(3, '0')}"`,
      );
    this.processed.push({ headers, body });
  }

  private renderTemplate(source: string, part: string): string | undefined {
    const nl = source.indexOf('\n');
    const hasHeader = /^\s*## template:\s*jinja/i.test(source);
    const bodyText = !hasHeader ? source : nl < 0 ? '' : source.slice(nl + 1);
    const shift = hasHeader ? 1 : 0;
    if (!this.opts.instanceData) {
      this.error(part, 'cannot render the jinja template: no instance data given');
      return undefined;
    }
    try {
      return renderJinja(bodyText, jinjaVariables(this.opts.instanceData));
    } catch (err) {
      if (err instanceof TemplateError) this.error(part, `jinja template, line ${err.line + shift}: ${err.reason}`);
      else this.error(part, `jinja template: ${describeError(err)}`);
      return undefined;
    }
  }

  private attach(entity: MimeEntity, ctype: string, body: Buffer, filename: string | undefined): void {
    this.counter++;
    const li = header(entity, 'launch-index');
    if (li !== undefined && this.opts.launchIndex !== undefined && Number(li) !== this.opts.launchIndex) {
      this.opts.log?.debug(
        `${this.label}: dropping part ${filename ?? this.counter} for launch index ${li} (this instance is ${this.opts.launchIndex})`,
      );
      return;
    }
    const name = filename ?? `part-${String(this.counter).padStart(3, '0')}`;
    const headers = entity.headers.filter(
      (h) => !/^(content-type|content-transfer-encoding|mime-version)$/i.test(h.name),
    );
    this.leaves.push({ name, contentType: ctype, headers, content: body });
  }

  private async include(text: string, once: boolean, depth: number, part: string): Promise<void> {
    this.counter++;
    if (depth >= (this.opts.maxIncludeDepth ?? 10)) {
      this.error(part, `#include nested deeper than ${this.opts.maxIncludeDepth ?? 10} levels; not followed`);
      return;
    }
    const urls: string[] = [];
    for (const rawLine of text.split(/\r?\n/)) {
      const line = rawLine.trim();
      const lc = line.toLowerCase();
      if (lc.startsWith('#include-once')) {
        const rest = line.slice('#include-once'.length).trim();
        if (rest) urls.push(rest);
        continue;
      }
      if (lc.startsWith('#include')) {
        const rest = line.slice('#include'.length).trim();
        if (rest) urls.push(rest);
        continue;
      }
      if (!line || line.startsWith('#')) continue;
      urls.push(line);
    }
    for (const url of urls) {
      let data: Uint8Array | undefined;
      if (once) data = this.includeOnceMemory.get(url) ?? (await this.opts.includeOnceCache?.get(url));
      if (!data) {
        try {
          data = await this.fetchInclude(url);
        } catch (err) {
          this.error(`${part} include ${url}`, `fetching failed: ${describeError(err)}`);
          continue;
        }
        if (once) {
          this.includeOnceMemory.set(url, data);
          await this.opts.includeOnceCache?.set(url, data);
        }
      }
      await this.processBlob(data, `${part} include ${url}`, depth + 1);
    }
  }

  private async archive(text: string, depth: number, part: string): Promise<void> {
    let entries: unknown;
    try {
      entries = readYaml(text, part);
    } catch (err) {
      this.counter++;
      this.error(part, err instanceof YamlError ? `#cloud-config-archive: ${err.detail}` : describeError(err));
      return;
    }
    if (!Array.isArray(entries)) {
      this.counter++;
      this.error(
        part,
        `#cloud-config-archive must be a YAML list, found ${entries === null ? 'nothing' : typeof entries}`,
      );
      return;
    }
    for (const raw of entries) {
      const ent: Record<string, unknown> =
        typeof raw === 'string'
          ? { content: raw }
          : raw && typeof raw === 'object' && !Array.isArray(raw)
            ? (raw as Record<string, unknown>)
            : {};
      if (Object.keys(ent).length === 0) {
        this.error(part, `archive entry ${JSON.stringify(raw)} is neither a string nor a mapping; skipped`);
        continue;
      }
      const content =
        typeof ent.content === 'string'
          ? ent.content
          : ent.content instanceof Uint8Array
            ? Buffer.from(ent.content).toString('utf8')
            : '';
      const type =
        typeof ent.type === 'string' && ent.type
          ? ent.type.toLowerCase()
          : (typeFromStartsWith(content, CT.cloudConfig) as string);
      const headers: MimeHeader[] = [
        { name: 'Content-Type', value: type },
        { name: 'MIME-Version', value: '1.0' },
      ];
      if (typeof ent.filename === 'string')
        headers.push({ name: 'Content-Disposition', value: `attachment; filename="${ent.filename}"` });
      if (ent['launch-index'] !== undefined) headers.push({ name: 'Launch-Index', value: String(ent['launch-index']) });
      for (const [k, v] of Object.entries(ent)) {
        if (
          ['content', 'filename', 'type', 'launch-index', 'content-disposition', 'content-type'].includes(
            k.toLowerCase(),
          )
        )
          continue;
        headers.push({ name: k, value: String(v) });
      }
      const entity: MimeEntity = {
        headers,
        contentType: type,
        params: {},
        body: Buffer.from(content, 'utf8'),
        parts: [],
        defects: [],
      };
      await this.leaf(entity, entity.body, depth);
    }
  }
}

function scriptFrequency(ctype: string): ScriptFrequency | undefined {
  if (ctype === CT.shellscript) return 'per-instance';
  if (ctype === CT.shellPerBoot) return 'per-boot';
  if (ctype === CT.shellPerInstance) return 'per-instance';
  if (ctype === CT.shellPerOnce) return 'per-once';
  return undefined;
}

/** Turns a source's leaves into its cloud-config and scripts (cloud-init's part handlers). */
function handleLeaves(
  source: DataSource,
  leaves: Leaf[],
  out: ProcessedUserData,
  errors: PartError[],
  log?: Log,
): Record<string, unknown> {
  let cfg: Record<string, unknown> = {};
  const label = LABEL[source];
  for (const leaf of leaves) {
    const part = `${label} ${leaf.name}`;
    out.parts.push({ source, name: leaf.name, contentType: leaf.contentType, bytes: leaf.content.length });
    const order = out.parts.length;
    // cloud-config must be UTF-8 (PyYAML refuses anything else): a bad byte fails the part, naming where it is.
    const text = () => decodeUtf8Strict(leaf.content, part);
    try {
      const freq = scriptFrequency(leaf.contentType);
      if (leaf.contentType === CT.cloudConfig) {
        let doc: unknown;
        try {
          doc = readYaml(text(), part);
        } catch (err) {
          if (err instanceof YamlError) throw new Error(`cloud-config is ${err.detail}`);
          throw err;
        }
        if (doc === null || doc === undefined) continue;
        if (typeof doc !== 'object' || Array.isArray(doc))
          throw new Error(
            `cloud-config must be a YAML mapping at the top level, found ${Array.isArray(doc) ? 'a list' : typeof doc}`,
          );
        const mergeHeader = leaf.headers.find((h) => /^(x-)?merge-type$/i.test(h.name))?.value;
        cfg = mergeCloudConfigPart(cfg, doc as Record<string, unknown>, mergeHeader, part);
      } else if (leaf.contentType === CT.cloudConfigJsonp) {
        const t = text();
        const nl = t.indexOf('\n');
        const body = t.trimStart().toLowerCase().startsWith('#cloud-config-jsonp')
          ? nl < 0
            ? ''
            : t.slice(nl + 1)
          : t;
        let patch: unknown;
        try {
          patch = readYaml(body, part, { lineOffset: body !== t ? 1 : 0 });
        } catch (err) {
          throw new Error(`#cloud-config-jsonp is ${err instanceof YamlError ? err.detail : describeError(err)}`);
        }
        cfg = applyJsonPatch(cfg, patch) as Record<string, unknown>;
      } else if (freq) {
        out.scripts.push({
          name: leaf.name,
          source,
          frequency: freq,
          kind: 'script',
          contentType: leaf.contentType,
          frequencyFromType: leaf.contentType !== CT.shellscript,
          content: leaf.content,
          order,
        });
      } else if (leaf.contentType === CT.boothook) {
        const t = text();
        const stripped = t.replace(/^\s*#cloud-boothook[^\n]*\n?/i, '');
        out.boothooks.push({
          name: leaf.name,
          source,
          frequency: 'per-boot',
          kind: 'boothook',
          contentType: leaf.contentType,
          frequencyFromType: false,
          content: Buffer.from(stripped, 'utf8'),
          order,
        });
      } else if (leaf.contentType === CT.partHandler) {
        out.partHandlers.push({
          name: leaf.name,
          source,
          frequency: 'per-instance',
          kind: 'part-handler',
          contentType: leaf.contentType,
          frequencyFromType: false,
          content: leaf.content,
          order,
        });
        log?.info(`${part}: part handler kept for runPartHandlers (Python, run in the target root)`);
      } else if (leaf.contentType === CT.upstartJob) {
        throw new Error('#upstart-job user data is no longer supported (cloud-init dropped it too); part skipped');
      } else {
        out.ignored.push({ part, contentType: leaf.contentType });
        out.customParts.push({
          source,
          name: leaf.name,
          contentType: leaf.contentType,
          headers: Object.fromEntries(leaf.headers.map((h) => [h.name, h.value])),
          content: leaf.content,
          order,
        });
        log?.warn(
          `Unhandled ${leaf.contentType} ${part}: ${JSON.stringify(text().slice(0, 40))}… (no handler for this type)`,
        );
      }
    } catch (err) {
      errors.push({ part, message: describeError(err) });
      log?.warn(`${part}: ${describeError(err)}`);
    }
  }
  return cfg;
}

/**
 * Processes user data and vendor data as cloud-init does: splits gzip / MIME / archive / include parts,
 * renders jinja, merges cloud-config parts, collects scripts. Never throws for bad input: each bad part
 * becomes an entry in `errors` and the rest is still processed.
 */
export async function processUserData(inputs: UserDataInputs, opts: ProcessOptions = {}): Promise<ProcessedUserData> {
  const out: ProcessedUserData = {
    cloudConfig: {},
    userCloudConfig: {},
    vendorCloudConfig: {},
    vendor2CloudConfig: {},
    scripts: [],
    boothooks: [],
    partHandlers: [],
    customParts: [],
    parts: [],
    ignored: [],
    errors: [],
    processed: {},
  };
  const fetchInclude = opts.fetchInclude ?? httpIncludeFetcher();
  const maxTotal = opts.maxTotalBytes ?? 256 * 1024 * 1024;
  const configs: Record<DataSource, Record<string, unknown>> = { user: {}, vendor: {}, vendor2: {} };
  const order: Array<[DataSource, Uint8Array | string | undefined]> = [
    ['vendor', inputs.vendorData],
    ['vendor2', inputs.vendorData2],
    ['user', inputs.userData],
  ];
  for (const [source, raw] of order) {
    if (raw === undefined || raw.length === 0) {
      if (raw !== undefined) out.processed[source] = [emptyProcessedPart()];
      continue;
    }
    const data = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
    if (data.length > maxTotal) {
      out.errors.push({
        part: LABEL[source],
        message: `${data.length} bytes is larger than the ${maxTotal}-byte limit; ignored`,
      });
      continue;
    }
    const p = new SourceProcessor(source, opts, fetchInclude);
    await p.processBlob(data, 'message', 0);
    out.processed[source] = p.processed;
    out.errors.push(...p.errors);
    configs[source] = handleLeaves(source, p.leaves, out, out.errors, opts.log);
  }
  out.userCloudConfig = configs.user;
  out.vendorCloudConfig = configs.vendor;
  out.vendor2CloudConfig = configs.vendor2;
  try {
    out.cloudConfig = mergeManyConfigs([configs.user, configs.vendor2, configs.vendor]);
  } catch (err) {
    out.errors.push({ part: 'user-data', message: `merging user over vendor config: ${describeError(err)}` });
    out.cloudConfig = configs.user;
  }
  return out;
}

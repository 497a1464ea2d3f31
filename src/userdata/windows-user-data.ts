// cloudbase-init's reading of user data: multipart parts by type, in order, or one script / cloud-config / certificate.
import type { Log } from '../util/log';
import { bytesToText, decodeBase64, gunzipBytes, isGzip } from './decode';
import { readYaml, YamlError } from '../config/read-yaml';
import { TemplateError } from './errors';
import { renderJinja } from './jinja-render';
import { entityFilename, header, parseMime, type MimeEntity } from './mime';
import type { PartError } from './process-user-data';
import {
  detectWindowsScript,
  isEc2LaunchV2,
  kindFromExtension,
  parseEc2LaunchV2,
  splitEc2Sections,
  type WindowsScript,
} from './windows-scripts';
import { describeError } from '../util/errors';

/**
 * One part's work, in the order cloudbase-init's UserDataPlugin walks the parts: a cloud-config document (its
 * cloudconfig plugin's keys: write_files, users, runcmd …), or the scripts of one part (several for EC2's
 * `<script>`/`<powershell>` blocks, whose exit codes make one result as cloudbase-init's EC2Config executor does).
 */
export type WindowsUserDataStep = { part: string } & (
  | { kind: 'cloud-config'; config: Record<string, unknown> }
  | {
      kind: 'scripts';
      scripts: WindowsScript[] /** EC2 `<script>`/`<powershell>` blocks: their exit codes are summed, as cloudbase-init's EC2Config executor. */;
      ec2?: true;
    }
  | HeatPart
);

/**
 * A Heat (`text/x-cfninitdata`) part, as cloudbase-init's heat plugin takes it: written under heat_config_dir by its
 * file name; the one named `cfn-userdata` is then run as a user data script (by its header, never its name).
 */
export interface HeatPart {
  kind: 'heat';
  /** The part's own file name (none: the part cannot be written, as in cloudbase-init). */
  filename: string | undefined;
  content: Uint8Array;
  /** For `cfn-userdata`: its scripts, empty when its format is not one cloudbase-init runs; otherwise undefined. */
  scripts?: WindowsScript[];
  /** The scripts are EC2 blocks, whose exit codes are summed. */
  ec2?: true;
}

/** The Heat part whose content cloudbase-init runs after writing it. */
export const HEAT_USER_DATA_FILENAME = 'cfn-userdata';

export interface WindowsUserData {
  /** The parts' work in the order cloudbase-init runs it. */
  steps: WindowsUserDataStep[];
  /** A PEM certificate user data, for the WinRM certificate plugin. */
  certificate?: string;
  ignored: Array<{ part: string; contentType: string }>;
  errors: PartError[];
}

const PEM_HEADER = '-----BEGIN CERTIFICATE-----';

/** Reads user data as cloudbase-init's UserDataPlugin does; never throws for bad input. */
export interface WindowsUserDataOptions {
  log?: Log;
  maxBytes?: number;
  /**
   * What a `## template: jinja` user data is rendered with: cloudbase-init's get_instance_data() (v1, ds and the
   * v1 keys at the top level). Without it such user data is an error.
   */
  templateData?: Record<string, unknown>;
}

export async function processWindowsUserData(
  data: Uint8Array,
  opts: WindowsUserDataOptions = {},
): Promise<WindowsUserData> {
  const out: WindowsUserData = { steps: [], ignored: [], errors: [] };
  const max = opts.maxBytes ?? 32 * 1024 * 1024;
  let bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (bytes.length > max) {
    out.errors.push({
      part: 'user-data',
      message: `${bytes.length} bytes is larger than the ${max}-byte limit; ignored`,
    });
    return out;
  }
  if (isGzip(bytes)) {
    try {
      bytes = await gunzipBytes(bytes, max);
    } catch (err) {
      out.errors.push({ part: 'user-data', message: describeError(err) });
      return out;
    }
  }
  if (isMultipart(bytes)) {
    const msg = parseMime(bytes);
    for (const d of msg.defects) out.errors.push({ part: 'user-data MIME message', message: d });
    let n = 0;
    const walk = (e: MimeEntity) => {
      if (e.contentType.startsWith('multipart/')) {
        for (const d of e.defects) if (e !== msg) out.errors.push({ part: 'user-data MIME message', message: d });
        e.parts.forEach(walk);
        return;
      }
      n++;
      const name = entityFilename(e) ?? `part-${String(n).padStart(3, '0')}`;
      const part = `user-data ${name}`;
      try {
        const enc = (header(e, 'content-transfer-encoding') ?? '').toLowerCase();
        const body = enc === 'base64' ? decodeBase64(e.body.toString('latin1')) : e.body;
        handlePart(e.contentType, name, entityFilename(e), body, out);
      } catch (err) {
        out.errors.push({ part, message: describeError(err) });
      }
    };
    walk(msg);
  } else {
    try {
      handleSingle(renderTemplate(bytes, opts.templateData), out);
    } catch (err) {
      out.errors.push({ part: 'user-data', message: describeError(err) });
    }
  }
  for (const e of out.errors) opts.log?.warn(`${e.part}: ${e.message}`);
  return out;
}

/**
 * cloudbase-init's test for a MIME message: "Content-Type: multipart" (case as written) anywhere in
 * the text before the first empty line, so a message may open with MIME-Version or any other
 * header. Like cloudbase-init it looks for "\n\n" only: a message with CRLF line ends has no such
 * pair, and then the whole text is searched.
 */
export function isMultipart(bytes: Buffer): boolean {
  const end = bytes.indexOf('\n\n', 0, 'latin1');
  return bytes.subarray(0, end === -1 ? bytes.length : end).includes('Content-Type: multipart', 0, 'latin1');
}

function cloudConfig(text: string, part: string, out: WindowsUserData): void {
  let doc: unknown;
  try {
    doc = readYaml(text, part);
  } catch (err) {
    throw new Error(err instanceof YamlError ? `cloud-config is ${err.detail}` : describeError(err));
  }
  if (doc === null || doc === undefined) return;
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new Error('cloud-config must be a YAML mapping at the top level');
  out.steps.push({ part, kind: 'cloud-config', config: doc as Record<string, unknown> });
}

/** The scripts among the steps, in order (for tools that only run scripts). */
export function scriptsOf(ud: WindowsUserData): WindowsScript[] {
  return ud.steps.flatMap((s) => (s.kind === 'scripts' ? s.scripts : s.kind === 'heat' ? (s.scripts ?? []) : []));
}

/**
 * What cloudbase-init's get_command runs DATA as, by its header alone: its scripts (none for another format), and
 * whether they are EC2 blocks.
 */
function scriptsByHeader(body: Buffer, name: string): { scripts: WindowsScript[]; ec2?: true } {
  const kind = detectWindowsScript(body);
  if (!kind) return { scripts: [] };
  return kind === 'ec2'
    ? { scripts: splitEc2Sections(body, name), ec2: true }
    : { scripts: [{ kind, name, content: body, persist: false, runAsLocalSystem: false }] };
}

function handlePart(
  ctype: string,
  name: string,
  filename: string | undefined,
  body: Buffer,
  out: WindowsUserData,
): void {
  const part = `user-data ${name}`;
  if (ctype === 'text/cloud-config') {
    cloudConfig(bytesToText(body), part, out);
    return;
  }
  if (ctype === 'text/x-cfninitdata') {
    out.steps.push({
      part,
      kind: 'heat',
      filename,
      content: body,
      ...(filename === HEAT_USER_DATA_FILENAME ? scriptsByHeader(body, name) : {}),
    });
    return;
  }
  if (ctype === 'text/x-shellscript') {
    // As cloudbase-init's fileexecutils.exec_file: the file name's extension first (.exe parts run as programs), then
    // the content's header.
    const ext = kindFromExtension(name);
    if (ext) {
      out.steps.push({
        part,
        kind: 'scripts',
        scripts: [{ kind: ext, name, content: body, persist: false, runAsLocalSystem: false }],
      });
      return;
    }
    scriptsFrom(body, name, out);
    return;
  }
  if (ctype === 'text/part-handler')
    throw new Error('#part-handler parts hold Python code; kiln does not run them (part skipped)');
  out.ignored.push({ part, contentType: ctype });
}

/**
 * A user data (not multipart) whose first line is `## template: jinja`, rendered without that line, as cloudbase-init's
 * Jinja2TemplateEngine does (trim_blocks); anything else as it is. An undefined variable prints as its
 * MissingJinjaVariable does, CI_MISSING_JINJA_VAR/<name>; other template errors name their line.
 */
function renderTemplate(bytes: Buffer, data: Record<string, unknown> | undefined): Buffer {
  const nl = bytes.indexOf(0x0a);
  const first = bytes.subarray(0, nl < 0 ? bytes.length : nl).toString('utf8');
  if (!/^##\s*template:\s*jinja\s*$/i.test(first)) return bytes;
  if (!data) throw new Error('a `## template: jinja` user data needs instance data, and none was given');
  try {
    return Buffer.from(renderJinja(nl < 0 ? '' : bytes.subarray(nl + 1).toString('utf8'), data), 'utf8');
  } catch (err) {
    // The header line is line 1 of the user data.
    if (err instanceof TemplateError) throw new Error(`jinja template, line ${err.line + 1}: ${err.reason}`);
    throw err;
  }
}

function handleSingle(bytes: Buffer, out: WindowsUserData): void {
  if (bytes.subarray(0, 13).toString('latin1') === '#cloud-config') {
    cloudConfig(bytesToText(bytes), 'user-data', out);
    return;
  }
  const text = bytesToText(bytes);
  if (text.trim().startsWith(PEM_HEADER)) {
    out.certificate = text.trim();
    return;
  }
  if (isEc2LaunchV2(text)) {
    const r = parseEc2LaunchV2(text);
    if (r.scripts.length > 0) out.steps.push({ part: 'user-data', kind: 'scripts', scripts: r.scripts });
    for (const s of r.skipped) out.ignored.push({ part: `user-data task ${s}`, contentType: 'ec2launch-v2-task' });
    return;
  }
  scriptsFrom(bytes, 'user-data', out);
}

function scriptsFrom(body: Buffer, name: string, out: WindowsUserData): void {
  const kind = detectWindowsScript(body);
  if (!kind) {
    out.ignored.push({
      part: `user-data ${name === 'user-data' ? '' : name}`.trim(),
      contentType: 'unknown script format',
    });
    return;
  }
  const part = name === 'user-data' ? name : `user-data ${name}`;
  const found = scriptsByHeader(body, name);
  if (found.scripts.length > 0) out.steps.push({ part, kind: 'scripts', ...found });
}

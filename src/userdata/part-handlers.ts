// Runs `#part-handler` user data (Python) in the target root, handing it the later parts of its types.
import { posix } from 'node:path';
import { cleanName, type ScriptRunContext } from './linux-scripts';
import type { CustomPart, ProcessedUserData, ScriptPart } from './process-user-data';

export interface PartHandlerOutcome {
  name: string;
  /** What the handler's list_types() returned. */
  types: string[];
  /** Names of the parts handed to it. */
  handled: string[];
  ok: boolean;
  error?: string;
}

// Loads the handler as cloud-init does (a module with list_types() and handle_part()), calls __begin__,
// each part by handler_version (1: 4 args, 2: + frequency, 3: + headers), then __end__.
const WRAPPER = `
import sys, json, base64, importlib.util
req = json.load(sys.stdin)
spec = importlib.util.spec_from_file_location("part_handler", req["path"])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
types = [str(t) for t in mod.list_types()]
ver = int(getattr(mod, "handler_version", 1))
def call(ct, fn, payload, headers):
    if ver == 1:
        mod.handle_part(None, ct, fn, payload)
    elif ver == 2:
        mod.handle_part(None, ct, fn, payload, "once-per-instance")
    else:
        mod.handle_part(None, ct, fn, payload, "once-per-instance", headers)
call("__begin__", None, None, {})
handled = []
for p in req["parts"]:
    if p["contentType"] in types:
        call(p["contentType"], p["name"], base64.b64decode(p["content"]).decode("utf-8", "replace"), p["headers"])
        handled.append(p["name"])
call("__end__", None, None, {})
sys.stdout.write("\\n@@KILN@@" + json.dumps({"types": types, "handled": handled}))
`;

/**
 * For each part handler, in order: writes it to instances/<iid>/handlers/, runs it with python3 in the
 * target root and hands it the custom parts that came after it whose type it lists. A failing handler is
 * recorded; the next still runs.
 */
export async function runPartHandlers(
  ctx: ScriptRunContext,
  processed: Pick<ProcessedUserData, 'partHandlers' | 'customParts'>,
): Promise<PartHandlerOutcome[]> {
  const outcomes: PartHandlerOutcome[] = [];
  const dir = posix.join(ctx.cloudDir ?? '/var/lib/cloud', 'instances', cleanName(ctx.instanceId), 'handlers');
  for (const [i, h] of processed.partHandlers.entries()) {
    outcomes.push(
      await runOne(
        ctx,
        h,
        processed.customParts.filter((p) => p.order > h.order),
        posix.join(dir, `part-handler-${String(i).padStart(3, '0')}.py`),
      ),
    );
  }
  return outcomes;
}

async function runOne(
  ctx: ScriptRunContext,
  h: ScriptPart,
  parts: CustomPart[],
  path: string,
): Promise<PartHandlerOutcome> {
  const base = { name: h.name, types: [] as string[], handled: [] as string[] };
  const python = ['/usr/bin/python3', '/usr/local/bin/python3', '/bin/python3'];
  let interp: string | undefined;
  for (const p of python) if (await ctx.platform.exists(p)) interp = interp ?? p;
  if (!interp)
    return {
      ...base,
      ok: false,
      error: `part handler ${h.name} cannot run: python3 is not installed in the target root`,
    };
  await ctx.platform.mkdir(posix.dirname(path), { mode: 0o755 });
  await ctx.platform.writeFile(path, h.content, { mode: 0o600 });
  const input = JSON.stringify({
    path,
    parts: parts.map((p) => ({
      name: p.name,
      contentType: p.contentType,
      headers: p.headers,
      content: Buffer.from(p.content).toString('base64'),
    })),
  });
  const r = await ctx.platform.run([interp, '-B', '-c', WRAPPER], {
    input,
    allowFailure: true,
    ...(ctx.env ? { env: ctx.env } : {}),
  });
  const at = r.stdout.lastIndexOf('\n@@KILN@@');
  const shown = (at >= 0 ? r.stdout.slice(0, at) : r.stdout) + r.stderr;
  if (shown.trim()) {
    await ctx.platform
      .writeFile(ctx.outputLog ?? '/var/log/cloud-init-output.log', shown.endsWith('\n') ? shown : `${shown}\n`, {
        append: true,
        mode: 0o640,
      })
      .catch(() => undefined);
  }
  if (r.code !== 0 || at < 0) {
    const last = r.stderr.trim().split('\n').slice(-1)[0] ?? '';
    const error = `part handler ${h.name} failed (exit ${r.code})${last ? `: ${last}` : ''}`;
    ctx.log?.warn(error);
    return { ...base, ok: false, error };
  }
  const res = JSON.parse(r.stdout.slice(at + '\n@@KILN@@'.length)) as { types: string[]; handled: string[] };
  return { name: h.name, types: res.types, handled: res.handled, ok: true };
}

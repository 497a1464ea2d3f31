// RFC 6902 JSON Patch (add, remove, replace, move, copy, test) for `#cloud-config-jsonp` parts.
import { describeError } from '../util/errors';

export class JsonPatchError extends Error {
  override readonly name = 'JsonPatchError';
}

function parsePointer(ptr: string): string[] {
  if (ptr === '') return [];
  if (!ptr.startsWith('/')) throw new JsonPatchError(`JSON pointer '${ptr}' must start with '/'`);
  return ptr
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parentOf(doc: unknown, path: string[], ptr: string): { parent: unknown; key: string } {
  let cur = doc;
  for (const seg of path.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[indexIn(cur, seg, ptr, false)];
    else if (isObj(cur) && Object.hasOwn(cur, seg)) cur = cur[seg];
    else throw new JsonPatchError(`path '${ptr}' does not exist (no '${seg}')`);
  }
  return { parent: cur, key: path[path.length - 1] as string };
}

function indexIn(arr: unknown[], seg: string, ptr: string, forAdd: boolean): number {
  if (forAdd && seg === '-') return arr.length;
  if (!/^(0|[1-9]\d*)$/.test(seg)) throw new JsonPatchError(`'${seg}' in '${ptr}' is not a list index`);
  const i = Number(seg);
  if (i > arr.length || (!forAdd && i === arr.length))
    throw new JsonPatchError(`index ${i} in '${ptr}' is out of range`);
  return i;
}

function get(doc: unknown, ptr: string): unknown {
  let cur = doc;
  for (const seg of parsePointer(ptr)) {
    if (Array.isArray(cur)) cur = cur[indexIn(cur, seg, ptr, false)];
    else if (isObj(cur) && Object.hasOwn(cur, seg)) cur = cur[seg];
    else throw new JsonPatchError(`path '${ptr}' does not exist`);
  }
  return cur;
}

function add(doc: unknown, ptr: string, value: unknown): unknown {
  const path = parsePointer(ptr);
  if (path.length === 0) return value;
  const { parent, key } = parentOf(doc, path, ptr);
  if (Array.isArray(parent)) parent.splice(indexIn(parent, key, ptr, true), 0, value);
  else if (isObj(parent)) parent[key] = value;
  else throw new JsonPatchError(`cannot add at '${ptr}': parent is not a container`);
  return doc;
}

function remove(doc: unknown, ptr: string): unknown {
  const path = parsePointer(ptr);
  if (path.length === 0) throw new JsonPatchError('cannot remove the whole document');
  const { parent, key } = parentOf(doc, path, ptr);
  if (Array.isArray(parent)) parent.splice(indexIn(parent, key, ptr, false), 1);
  else if (isObj(parent) && Object.hasOwn(parent, key)) delete parent[key];
  else throw new JsonPatchError(`cannot remove '${ptr}': it does not exist`);
  return doc;
}

/** Applies PATCH (a list of operations) to a copy of DOC; throws naming the operation index. */
export function applyJsonPatch(doc: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) throw new JsonPatchError('a JSON patch must be a list of operations');
  let out = clone(doc);
  patch.forEach((op, i) => {
    try {
      if (!isObj(op) || typeof op.op !== 'string' || typeof op.path !== 'string')
        throw new JsonPatchError('operation needs "op" and "path"');
      const path = op.path;
      switch (op.op) {
        case 'add':
          if (!('value' in op)) throw new JsonPatchError('"add" needs "value"');
          out = add(out, path, clone(op.value));
          break;
        case 'remove':
          out = remove(out, path);
          break;
        case 'replace':
          if (!('value' in op)) throw new JsonPatchError('"replace" needs "value"');
          if (path === '') {
            out = clone(op.value);
            break;
          }
          get(out, path);
          out = add(remove(out, path), path, clone(op.value));
          break;
        case 'move': {
          if (typeof op.from !== 'string') throw new JsonPatchError('"move" needs "from"');
          if (path.startsWith(`${op.from}/`)) throw new JsonPatchError('cannot move a value into itself');
          const v = get(out, op.from);
          out = add(remove(out, op.from), path, v);
          break;
        }
        case 'copy':
          if (typeof op.from !== 'string') throw new JsonPatchError('"copy" needs "from"');
          out = add(out, path, clone(get(out, op.from)));
          break;
        case 'test':
          if (JSON.stringify(get(out, path)) !== JSON.stringify(op.value))
            throw new JsonPatchError(`test failed: '${path}' is not ${JSON.stringify(op.value)}`);
          break;
        default:
          throw new JsonPatchError(`unknown op '${String(op.op)}'`);
      }
    } catch (err) {
      throw new JsonPatchError(`operation ${i}: ${describeError(err)}`);
    }
  });
  return out;
}

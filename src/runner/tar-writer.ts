// A minimal ustar writer (files and folders), so collect-logs needs neither a dependency nor a tar binary.

export interface TarEntry {
  path: string;
  content?: Uint8Array;
  /** 'file' (default) or 'dir'. */
  type?: 'file' | 'dir';
  mode?: number;
  mtime?: number;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(e: TarEntry, size: number): Uint8Array {
  const h = new Uint8Array(512);
  const put = (s: string, off: number, len: number) => h.set(Buffer.from(s, 'utf8').subarray(0, len), off);
  let name = e.path.replace(/^\/+/, '');
  if (e.type === 'dir' && !name.endsWith('/')) name += '/';
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', name.length - 2);
    prefix = name.slice(0, cut);
    name = name.slice(cut + 1);
  }
  put(name, 0, 100);
  put(octal(e.mode ?? (e.type === 'dir' ? 0o755 : 0o644), 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(Math.floor(e.mtime ?? Date.now() / 1000), 12), 136, 12);
  put('        ', 148, 8);
  put(e.type === 'dir' ? '5' : '0', 156, 1);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  put('root', 265, 32);
  put('root', 297, 32);
  put(prefix, 345, 155);
  let sum = 0;
  for (const b of h) sum += b;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return h;
}

export function writeTar(entries: TarEntry[]): Uint8Array {
  const chunks: Uint8Array[] = [];
  for (const e of entries) {
    const content = e.type === 'dir' ? new Uint8Array() : (e.content ?? new Uint8Array());
    chunks.push(header(e, content.length), content);
    const pad = (512 - (content.length % 512)) % 512;
    if (pad) chunks.push(new Uint8Array(pad));
  }
  chunks.push(new Uint8Array(1024));
  return Buffer.concat(chunks);
}

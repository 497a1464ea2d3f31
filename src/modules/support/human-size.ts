// util.human2bytes: '10M', '.5G', '512' → bytes (binary multipliers, optional trailing B).
export function humanToBytes(size: string): number {
  let s = size.endsWith('B') ? size.slice(0, -1) : size;
  let mult = 1;
  const units: Record<string, number> = { K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40 };
  const last = s.slice(-1);
  if (last in units) {
    mult = units[last] as number;
    s = s.slice(0, -1);
  }
  const n = Number(s.trim());
  if (s.trim() === '' || !Number.isFinite(n)) throw new Error(`'${size}' is not valid input.`);
  if (n < 0) throw new Error(`'${size}': cannot be negative`);
  return Math.trunc(n * mult);
}

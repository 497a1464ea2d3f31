// Writes small WebAssembly modules (one memory, a few exported functions) from instruction lists, for numeric
// kernels that must be fast from their first call: V8 compiles WebAssembly to machine code when the module is
// made, where cold JavaScript starts in the interpreter. Only the instructions kiln's kernels use are here.

export type ValueType = 'i32' | 'i64' | 'f64';

const VALUE_TYPE: Record<ValueType, number> = { i32: 0x7f, i64: 0x7e, f64: 0x7c };

/** One exported function: its signature, its extra locals (numbered after the parameters) and its body. */
export interface WasmFunction {
  name: string;
  params: ValueType[];
  results: ValueType[];
  locals: ValueType[];
  /** The instructions, without the body's final `end`. */
  body: number[];
}

/** An unsigned integer as LEB128. */
function unsignedLeb128(value: number): number[] {
  const out: number[] = [];
  let n = value;
  do {
    let byte = n & 0x7f;
    n = Math.floor(n / 128);
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

/** A signed integer as LEB128. */
function signedLeb128(value: bigint): number[] {
  const out: number[] = [];
  let n = value;
  for (;;) {
    const byte = Number(n & 0x7fn);
    n >>= 7n;
    const signBitClear = (byte & 0x40) === 0;
    if ((n === 0n && signBitClear) || (n === -1n && !signBitClear)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

function vector(items: number[][]): number[] {
  return [...unsignedLeb128(items.length), ...items.flat()];
}

function utf8Name(name: string): number[] {
  const bytes = [...Buffer.from(name, 'utf8')];
  return [...unsignedLeb128(bytes.length), ...bytes];
}

function section(id: number, content: number[]): number[] {
  return [id, ...unsignedLeb128(content.length), ...content];
}

/** Memory access immediates: the alignment as a power of two, then the constant offset. */
const memoryArgument = (alignLog2: number, offset: number): number[] => [alignLog2, ...unsignedLeb128(offset)];

/** The instructions the kernels use, as byte sequences (block types are always empty: blocks yield nothing). */
export const op = {
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  if: [0x04, 0x40],
  else: [0x05],
  end: [0x0b],
  br: (depth: number) => [0x0c, ...unsignedLeb128(depth)],
  brIf: (depth: number) => [0x0d, ...unsignedLeb128(depth)],
  localGet: (index: number) => [0x20, ...unsignedLeb128(index)],
  localSet: (index: number) => [0x21, ...unsignedLeb128(index)],
  localTee: (index: number) => [0x22, ...unsignedLeb128(index)],
  i32Load: (offset = 0) => [0x28, ...memoryArgument(2, offset)],
  f64Load: (offset = 0) => [0x2b, ...memoryArgument(3, offset)],
  i32Store8: (offset = 0) => [0x3a, ...memoryArgument(0, offset)],
  i32Const: (value: number) => [0x41, ...signedLeb128(BigInt(value))],
  i32Eqz: [0x45],
  i32GeU: [0x4f],
  i32Add: [0x6a],
  i32Sub: [0x6b],
  i32Mul: [0x6c],
  i32DivU: [0x6e],
  i32RemS: [0x6f],
  i32RemU: [0x70],
  i32ShrU: [0x76],
  i64Mul: [0x7e],
  i64RemU: [0x82],
  i32WrapI64: [0xa7],
  i64ExtendI32U: [0xad],
  i64TruncF64U: [0xb1],
  /** memory.fill (bulk memory): destination, byte value and length from the stack. */
  memoryFill: [0xfc, ...unsignedLeb128(11), 0x00],
} as const;

/** The bytes of a module with one memory of MEMORY_PAGES 64 KiB pages, exported as `memory`, and FUNCTIONS exported by name. */
export function writeWasmModule(memoryPages: number, functions: WasmFunction[]): Uint8Array {
  const types = functions.map((f) => [0x60, ...vector(f.params.map((t) => [VALUE_TYPE[t]])), ...vector(f.results.map((t) => [VALUE_TYPE[t]]))]);
  const functionTypes = functions.map((_, i) => unsignedLeb128(i));
  const memory = [[0x00, ...unsignedLeb128(memoryPages)]];
  const exports = [[...utf8Name('memory'), 0x02, 0x00], ...functions.map((f, i) => [...utf8Name(f.name), 0x00, ...unsignedLeb128(i)])];
  const bodies = functions.map((f) => {
    const locals = vector(f.locals.map((t) => [1, VALUE_TYPE[t]]));
    const code = [...locals, ...f.body, ...op.end];
    return [...unsignedLeb128(code.length), ...code];
  });
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, vector(types)),
    ...section(3, vector(functionTypes)),
    ...section(5, vector(memory)),
    ...section(7, vector(exports)),
    ...section(10, vector(bodies)),
  ]);
}

// The part of the WebAssembly JavaScript API kiln uses (src/modules/sieve-window.ts). Node has all of it at
// run time; its types ship with TypeScript's DOM library, which kiln does not load.
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
  }
  class Instance {
    constructor(module: Module, imports?: Record<string, Record<string, unknown>>);
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    readonly buffer: ArrayBuffer;
  }
}

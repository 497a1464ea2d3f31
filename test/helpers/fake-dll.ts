// Win32 DLLs stood in for by JavaScript behind real koffi calls, on the host: a binding's own declarations (its
// prototypes and structures) are marshalled by the host's koffi into a real C call, which lands in a koffi
// callback declared with the prototype of the Windows SDK headers, written out in the test. Where the binding's
// declaration differs from the SDK's (a pointer where a structure goes by value), the callback sees shifted or
// garbled arguments: the host's ABI (System V x64 or AAPCS64) passes a 16-byte structure in two registers, as
// Windows on arm64 does, where Windows x64 would have hidden the mistake.
import type { Koffi } from '../../src/util/koffi-addon';

type TypeSpec = Parameters<Koffi['sizeof']>[0];

export interface FakeExport {
  /** The parameters and result as the SDK header declares them. */
  params: TypeSpec[];
  result: TypeSpec;
  impl: (...args: never[]) => unknown;
}

export interface FakeDlls {
  /**
   * A koffi whose load() gives the fake DLLs (any other name fails as a missing DLL); everything else is the host's
   * koffi.
   */
  koffi: Koffi;
  /** Every call made, 'DLL!Export', in order. */
  calls: string[];
  /** koffi.alloc blocks not freed yet (the bindings must free what they allocate). */
  liveAllocations(): number;
}

/** DLLS: DLL file name → export name → the fake. An export not listed binds, and fails the test when called. */
export function fakeDlls(host: Koffi, dlls: Record<string, Record<string, FakeExport>>): FakeDlls {
  const calls: string[] = [];
  const live = new Set<unknown>();
  const koffi = Object.create(host) as Koffi & Record<string, unknown>;
  koffi.alloc = ((type: TypeSpec, length: number) => {
    const mem = host.alloc(type, length) as unknown;
    live.add(mem);
    return mem;
  }) as Koffi['alloc'];
  koffi.free = ((mem: unknown) => {
    live.delete(mem);
    host.free(mem);
  }) as Koffi['free'];
  koffi.load = ((dll: string) => {
    const exports = dlls[dll.toLowerCase()];
    if (!exports) throw new Error(`Failed to load shared library: ${dll} (not faked)`);
    const func = (convention: string, name: string, result: TypeSpec, params: TypeSpec[]) => {
      const caller = host.proto(convention, null, result, params);
      const fake = exports[name];
      if (!fake) {
        return () => {
          throw new Error(`${dll}!${name} was called but is not faked`);
        };
      }
      const callee = host.proto(convention, null, fake.result, fake.params);
      const pointer = host.register((...args: never[]) => {
        calls.push(`${dll}!${name}`);
        return fake.impl(...args);
      }, host.pointer(callee));
      return (...args: unknown[]) => host.call(pointer, caller, ...args) as unknown;
    };
    return { func } as unknown as ReturnType<Koffi['load']>;
  }) as Koffi['load'];
  return { koffi, calls, liveAllocations: () => live.size };
}

import type { LinearMemory } from '@tsge/metadef';
import { assembleModule, type FunctionDef } from './emitter.js';
import { hasWasmSimd } from './kernel-modules.js';

interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

/**
 * A small WebAssembly module of its own beside the main kernel module (kernel-modules.ts), for
 * kernels that change independently of it: compiled once per memory kind, instantiated once per
 * memory. `exportsOf(memory)` is undefined without WebAssembly SIMD.
 */
export function extraModule(functions: () => readonly FunctionDef[]): (memory: LinearMemory) => Record<string, unknown> | undefined {
  const modules = new Map<boolean, object>();
  const instances = new WeakMap<LinearMemory, Record<string, unknown>>();
  return (memory) => {
    if (!wasm || !hasWasmSimd()) return undefined;
    const cached = instances.get(memory);
    if (cached) return cached;
    const shared = typeof SharedArrayBuffer !== 'undefined' && memory.buffer instanceof SharedArrayBuffer;
    let module = modules.get(shared);
    if (!module) {
      module = new wasm.Module(assembleModule(functions(), { shared }));
      modules.set(shared, module);
    }
    const exports = new wasm.Instance(module, { env: { memory } }).exports;
    instances.set(memory, exports);
    return exports;
  };
}

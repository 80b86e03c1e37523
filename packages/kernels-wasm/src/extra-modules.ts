import type { LinearMemory } from '@tsge/metadef';
import { sharedCompiledModule } from './compiled-modules.js';
import { assembleModule, type FunctionDef } from './emitter.js';
import { hasWasmSimd } from './kernel-modules.js';

interface WasmApi {
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

/**
 * A small WebAssembly module of its own beside the main kernel module (kernel-modules.ts), for
 * kernels that change independently of it: compiled once per memory kind, instantiated once per
 * memory. `exportsOf(memory)` is undefined without WebAssembly SIMD; `name` keys its compiled module
 * (unique per module: another thread adopts modules by name, see compiled-modules.ts).
 */
/** Every extra module's key and emitter, in the order their kernels' files were imported. */
const extraModules = new Map<string, () => readonly FunctionDef[]>();

/**
 * Emits and compiles every extra module on this thread (shared or unshared memory), so a model's
 * first run compiles nothing and the device's workers adopt them (compiledCode) instead of each
 * emitting its own in the middle of a run.
 */
export function compileExtraModules(shared: boolean): void {
  if (!wasm || !hasWasmSimd()) return;
  for (const [name, functions] of extraModules)
    sharedCompiledModule(`${name}:${shared ? 's' : 'u'}`, () => assembleModule(functions(), { shared }));
}

export function extraModule(
  name: string,
  functions: () => readonly FunctionDef[],
): (memory: LinearMemory) => Record<string, unknown> | undefined {
  const instances = new WeakMap<LinearMemory, Record<string, unknown>>();
  extraModules.set(name, functions);
  return (memory) => {
    if (!wasm || !hasWasmSimd()) return undefined;
    const cached = instances.get(memory);
    if (cached) return cached;
    const shared = typeof SharedArrayBuffer !== 'undefined' && memory.buffer instanceof SharedArrayBuffer;
    const module = sharedCompiledModule(`${name}:${shared ? 's' : 'u'}`, () => assembleModule(functions(), { shared }));
    const exports = new wasm.Instance(module, { env: { memory } }).exports;
    instances.set(memory, exports);
    return exports;
  };
}

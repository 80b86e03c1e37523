// The compiled WebAssembly modules of this thread, by key. Emitting and compiling the kernel modules
// costs each thread tens of ms of CPU on its first model; a worker adopts the calling thread's
// modules instead (a structured clone of a WebAssembly.Module shares its compiled code).

interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

/** Generated kernels are keyed by their description: bound the cache for processes that load many models. */
const MAX_MODULES = 1024;
const modules = new Map<string, object>();

/** The module compiled from `bytes()` under `key` (compiled once per thread, or adopted). */
export function sharedCompiledModule(key: string, bytes: () => Uint8Array): object {
  let module = modules.get(key);
  if (!module) {
    if (!wasm) throw new Error('WebAssembly is not available');
    module = new wasm.Module(bytes());
    if (modules.size >= MAX_MODULES) modules.clear();
    modules.set(key, module);
  }
  return module;
}

/** This thread's compiled modules, as [key, module] pairs another thread can `adoptCompiledModules`. */
export function compiledModuleEntries(): [string, object][] {
  return [...modules];
}

/**
 * Takes another thread's compiled modules (from `compiledModuleEntries`, sent by postMessage); a pair
 * that is not a string key and a WebAssembly.Module is an error, a key already compiled here is kept.
 */
export function adoptCompiledModules(entries: unknown): void {
  if (!Array.isArray(entries)) throw new TypeError('compiled modules: expected an array of [key, WebAssembly.Module] pairs');
  const Module = (globalThis as { WebAssembly?: { Module: abstract new (...args: never[]) => object } }).WebAssembly?.Module;
  for (const entry of entries) {
    const [key, module] = Array.isArray(entry) ? (entry as unknown[]) : [];
    if (typeof key !== 'string' || Module === undefined || !(module instanceof Module))
      throw new TypeError(
        `compiled modules: ${typeof key === 'string' ? `entry ${key}` : 'an entry'} is not a [key, WebAssembly.Module] pair`,
      );
    if (!modules.has(key) && modules.size < MAX_MODULES) modules.set(key, module);
  }
}

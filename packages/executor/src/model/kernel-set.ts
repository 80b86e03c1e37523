import type { KernelLibraryV1, KernelRegistry, KernelV1, LibraryKernelRegistry, LinearMemory, ThreadWorkspaceV1 } from '@tsge/metadef';
import { TsgeError, createKernelRegistryOf } from '@tsge/metadef';
import type { WasmMemory, WasmModule } from '@tsge/runtime';
import { wasm } from '@tsge/runtime';
import type { TileRunner } from '../sink/tile-pool.js';
import type { KernelCall } from './kernel-call.js';

/** A generated WebAssembly kernel: called with the byte addresses of inputs, outputs, workspace. */
export type WasmKernel = (...addresses: number[]) => unknown;

/** How a call is executed: a registry kernel or an export of a KERNELS module. */
export type BoundKernel = { readonly kind: 'js'; readonly kernel: KernelV1 } | { readonly kind: 'wasm'; readonly run: WasmKernel };

const WASM_PREFIX = 'wasm:';
/** The default libraries, in precedence order (read-only once imported). */
let defaultLibraries: readonly KernelLibraryV1[] | undefined;
/** The kernel set of models that use only the defaults (read-only once built). */
let defaultSet: KernelSet | undefined;

/**
 * The kernels a model may use: the `KernelLibraryV1`s of `kernelModules` (each exports
 * `kernelLibrary`) first, then @tsge/kernels-wasm's and @tsge/kernels-js's. A kernel of an earlier
 * library shadows one of a later library with the same op and implementation name. The default
 * libraries are imported only when some call needs them (or `always`), so a worker whose tasks are
 * all covered elsewhere starts faster. The same function runs on the calling thread and in each worker.
 */
export interface KernelSet {
  readonly registry: KernelRegistry;
  /** Runs a tile function of a loaded library by name (intra-op parallelism), when one has tiles. */
  readonly runTile: TileRunner | undefined;
  /** The per-thread workspaces the libraries want in device memory, as one region per thread. */
  readonly workspace: ThreadWorkspace | undefined;
}

/** A thread's workspace region: its size, and how the thread tells each library where its part is. */
export interface ThreadWorkspace {
  readonly bytes: number;
  bind(memory: LinearMemory, offset: number, bytes: number): void;
}

function isKernelLibrary(value: unknown): value is KernelLibraryV1 {
  const library = value as Partial<KernelLibraryV1> | undefined;
  return library?.specVersion === 'v1' && Array.isArray(library.kernels) && Array.isArray(library.tiles);
}

async function importLibrary(specifier: string): Promise<KernelLibraryV1> {
  const module = (await import(specifier)) as { kernelLibrary?: unknown };
  if (!isKernelLibrary(module.kernelLibrary)) {
    throw TsgeError.of('TSGE-E6101', { module: specifier });
  }
  return module.kernelLibrary;
}

/** Runs a tile function of the libraries by name (the registry keeps their precedence). */
function tileRunnerOf(registry: LibraryKernelRegistry, libraries: readonly KernelLibraryV1[]): TileRunner | undefined {
  if (!libraries.some((library) => library.tiles.length > 0)) return undefined;
  return (memory, name, args) => {
    const tile = registry.tile(name);
    if (!tile) throw TsgeError.of('TSGE-E6102', { tile: name });
    tile.run(memory, args);
  };
}

/** One region per thread holding every library's workspace, each part 64-byte aligned. */
function workspaceOf(libraries: readonly KernelLibraryV1[]): ThreadWorkspace | undefined {
  const parts: { offset: number; bytes: number; bind: ThreadWorkspaceV1['bind'] }[] = [];
  let bytes = 0;
  for (const library of libraries) {
    const w = library.workspace;
    if (!w || !(w.bytesPerThread > 0)) continue;
    const size = Math.ceil(w.bytesPerThread / 64) * 64;
    parts.push({ offset: bytes, bytes: size, bind: (memory, offset, n) => w.bind(memory, offset, n) });
    bytes += size;
  }
  if (parts.length === 0) return undefined;
  return {
    bytes,
    bind(memory, offset) {
      for (const part of parts) part.bind(memory, offset + part.offset, part.bytes);
    },
  };
}

function kernelSetOf(libraries: readonly KernelLibraryV1[]): KernelSet {
  const registry = createKernelRegistryOf(libraries);
  return { registry, runTile: tileRunnerOf(registry, libraries), workspace: workspaceOf(libraries) };
}

async function loadDefaultLibraries(): Promise<readonly KernelLibraryV1[]> {
  if (!defaultLibraries) {
    const [js, simd] = await Promise.all([import('@tsge/kernels-js'), import('@tsge/kernels-wasm')]);
    defaultLibraries = [simd.wasmKernelLibrary, js.jsKernelLibrary];
  }
  return defaultLibraries;
}

export async function loadKernelRegistry(
  kernelModules: readonly string[],
  calls: Iterable<KernelCall>,
  always = false,
): Promise<KernelSet> {
  const callList = [...calls];
  // without user modules the set is either empty or exactly the defaults: build that once per thread
  if (kernelModules.length === 0 && defaultSet && (always || callList.some((call) => !call.kernel.startsWith(WASM_PREFIX))))
    return defaultSet;
  const libraries: KernelLibraryV1[] = [];
  for (const specifier of kernelModules) libraries.push(await importLibrary(specifier));
  let needsDefaults = always;
  if (!needsDefaults) {
    const user = createKernelRegistryOf(libraries);
    needsDefaults = callList.some((call) => !call.kernel.startsWith(WASM_PREFIX) && !bindKernel(call, user, new Map()));
  }
  if (!needsDefaults) return kernelSetOf(libraries);
  const set = kernelSetOf([...libraries, ...(await loadDefaultLibraries())]);
  if (kernelModules.length === 0) defaultSet = set;
  return set;
}

/** Instantiates the model's KERNELS modules over the device memory (per thread). */
export async function instantiateWasmKernels(
  modules: readonly { name: string; module: WasmModule }[],
  memory: WasmMemory,
): Promise<Map<string, WasmKernel>> {
  const exports = new Map<string, WasmKernel>();
  for (const { name, module } of modules) {
    const instance = await wasm.instantiate(module, { env: { memory } });
    for (const [exportName, value] of Object.entries(instance.exports)) {
      if (typeof value === 'function') exports.set(`${WASM_PREFIX}${name}:${exportName}`, value as WasmKernel);
    }
  }
  return exports;
}

/** The implementation a task names, or undefined when this thread has none. */
export function bindKernel(
  call: KernelCall,
  registry: KernelRegistry,
  wasmKernels: ReadonlyMap<string, WasmKernel>,
): BoundKernel | undefined {
  if (call.kernel.startsWith(WASM_PREFIX)) {
    const run = wasmKernels.get(call.kernel);
    return run ? { kind: 'wasm', run } : undefined;
  }
  const kernel = registry.find(call.opType, call.domain, call.inputDtype, [call.kernel]);
  return kernel && kernel.name === call.kernel ? { kind: 'js', kernel } : undefined;
}

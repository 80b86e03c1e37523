import type { KernelRegistry, KernelV1, LinearMemory } from '@tsge/metadef';
import { normalizeDomain } from '@tsge/metadef';
import type { WasmMemory, WasmModule } from '@tsge/runtime';
import { wasm } from '@tsge/runtime';
import type { TileRunner } from '../sink/tile-pool.js';
import type { KernelCall } from './kernel-call.js';

/** A generated WebAssembly kernel: called with the byte addresses of inputs, outputs, workspace. */
export type WasmKernel = (...addresses: number[]) => unknown;

/** How a call is executed: a registry kernel or an export of a KERNELS module. */
export type BoundKernel = { readonly kind: 'js'; readonly kernel: KernelV1 } | { readonly kind: 'wasm'; readonly run: WasmKernel };

const WASM_PREFIX = 'wasm:';
let defaultKernels: readonly KernelV1[] | undefined;
/** The kernel set of models that use only the defaults (read-only once built). */
let defaultSet: KernelSet | undefined;

/**
 * The kernels a model may use: those of `kernelModules` (modules exporting `kernels`) first, then
 * `@tsge/ops`'s defaults. `@tsge/ops` is imported only when some call needs it (or `always`), so a
 * worker whose tasks are all covered elsewhere starts faster. The same function runs on the calling
 * thread and in each worker.
 */
export interface KernelSet {
  readonly registry: KernelRegistry;
  /** Runs a tile function by name (intra-op parallelism), when a loaded library exports `runTile`. */
  readonly runTile: TileRunner | undefined;
  /** Per-thread workspace the library's kernels want in device memory (`THREAD_WORKSPACE_BYTES`). */
  readonly workspace: ThreadWorkspace | undefined;
}

/** A library's per-thread workspace: its size, and how a thread tells the library where its own is. */
export interface ThreadWorkspace {
  readonly bytes: number;
  bind(memory: LinearMemory, offset: number, bytes: number): void;
}

type KernelLibrary = {
  kernels?: readonly KernelV1[];
  runTile?: TileRunner;
  THREAD_WORKSPACE_BYTES?: number;
  bindThreadWorkspace?: (memory: LinearMemory, offset: number, bytes: number) => void;
};

function workspaceOf(library: KernelLibrary): ThreadWorkspace | undefined {
  const bytes = library.THREAD_WORKSPACE_BYTES;
  const bind = library.bindThreadWorkspace;
  if (typeof bytes !== 'number' || !(bytes > 0) || typeof bind !== 'function') return undefined;
  return { bytes: Math.ceil(bytes / 64) * 64, bind };
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
  const registry = createSimpleRegistry();
  let runTile: TileRunner | undefined;
  let workspace: ThreadWorkspace | undefined;
  for (const specifier of kernelModules) {
    const module = (await import(specifier)) as KernelLibrary;
    if (!Array.isArray(module.kernels)) throw new TypeError(`kernel module ${specifier} does not export a kernels array`);
    for (const kernel of module.kernels) registry.register(kernel);
    if (!runTile && typeof module.runTile === 'function') runTile = module.runTile;
    workspace ??= workspaceOf(module);
  }
  let needsDefaults = always;
  for (const call of callList) {
    if (needsDefaults) break;
    if (!call.kernel.startsWith(WASM_PREFIX) && !bindKernel(call, registry, new Map())) needsDefaults = true;
  }
  if (needsDefaults) {
    const ops = await import('@tsge/ops');
    // the default kernels are immutable: build their list once per thread, not per load
    defaultKernels ??= ops.createDefaultKernelRegistry().list();
    for (const kernel of defaultKernels) registry.register(kernel);
    const library = ops as KernelLibrary;
    if (!runTile && typeof library.runTile === 'function') runTile = library.runTile;
    workspace ??= workspaceOf(library);
    if (kernelModules.length === 0) defaultSet = { registry, runTile, workspace };
  }
  return { registry, runTile, workspace };
}

/** A registry where the first kernel registered under a name wins (user modules before defaults). */
function createSimpleRegistry(): KernelRegistry {
  const byOp = new Map<string, KernelV1[]>();
  const key = (opType: string, domain: string): string => `${normalizeDomain(domain)}::${opType}`;
  return {
    register(kernel) {
      const list = byOp.get(key(kernel.opType, kernel.domain)) ?? [];
      if (!list.some((k) => k.name === kernel.name)) list.push(kernel);
      byOp.set(key(kernel.opType, kernel.domain), list);
    },
    find(opType, domain, dtype, preference = ['reference']) {
      const fits = (byOp.get(key(opType, domain)) ?? []).filter((k) => dtype === undefined || !k.dtypes || k.dtypes.includes(dtype));
      for (const name of preference) {
        const k = fits.find((c) => c.name === name);
        if (k) return k;
      }
      return fits[0];
    },
    list: () => [...byOp.values()].flat(),
  };
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

import type {
  KernelDeviceKind,
  KernelLibraryV1,
  KernelRegistry,
  KernelV1,
  LibraryKernelRegistry,
  LinearMemory,
  ThreadWorkspaceV1,
} from '@tsge/metadef';
import { TsgeError, createKernelRegistryOf } from '@tsge/metadef';
import type { TileRunner } from '../sink/tile-pool.js';
import type { KernelCall } from './kernel-call.js';

/** A generated WebAssembly kernel: called with the byte addresses of inputs, outputs, workspace. */
export type WasmKernel = (...addresses: number[]) => unknown;

/** How a call is executed: a registry kernel or an export of a KERNELS module. */
export type BoundKernel = { readonly kind: 'js'; readonly kernel: KernelV1 } | { readonly kind: 'wasm'; readonly run: WasmKernel };

const WASM_PREFIX = 'wasm:';
/** The default libraries, in precedence order (read-only once imported). */
let defaultLibraries: readonly KernelLibraryV1[] | undefined;
/** The kernel sets of models that use only the defaults, per device kinds (read-only once built). */
const defaultSets = new Map<string, KernelSet>();

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
  /** The code the libraries compiled on this thread so far, by library name (for the workers). */
  shareCode(): SharedCode;
  /** Gives each library the code it compiled on another thread (`shareCode` there), before first use. */
  adoptCode(code: SharedCode): void;
}

/** Libraries' compiled code by library name (structured-cloneable). */
export type SharedCode = readonly (readonly [string, unknown])[];

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
  return {
    registry,
    runTile: tileRunnerOf(registry, libraries),
    workspace: workspaceOf(libraries),
    shareCode: () => libraries.flatMap((library) => (library.compiledCode ? [[library.name, library.compiledCode.share()] as const] : [])),
    adoptCode(code) {
      for (const [name, shared] of code) {
        for (const library of libraries) if (library.name === name) library.compiledCode?.adopt(shared);
      }
    },
  };
}

/** The default kernel libraries (SIMD, then the JavaScript reference kernels), imported once. */
export async function loadDefaultLibraries(): Promise<readonly KernelLibraryV1[]> {
  if (!defaultLibraries) {
    const [js, simd] = await Promise.all([import('@tsge/kernels-js'), import('@tsge/kernels-wasm')]);
    defaultLibraries = [simd.wasmKernelLibrary, js.jsKernelLibrary];
  }
  return defaultLibraries;
}

/**
 * The kernel set of a thread: `kernelModules`' libraries, then the defaults when some call needs
 * them (or `always`), keeping only libraries whose device kind is one of `kinds` (the device's).
 */
export async function loadKernelRegistry(
  kernelModules: readonly string[],
  calls: Iterable<KernelCall>,
  always: boolean,
  kinds: readonly KernelDeviceKind[],
): Promise<KernelSet> {
  const callList = [...calls];
  const runs = (library: KernelLibraryV1): boolean => kinds.includes(library.device);
  const kindsKey = kinds.join(',');
  // without user modules the set is either empty or exactly the defaults: build that once per thread
  const known = defaultSets.get(kindsKey);
  if (kernelModules.length === 0 && known && (always || callList.some((call) => !call.kernel.startsWith(WASM_PREFIX)))) return known;
  const libraries: KernelLibraryV1[] = [];
  for (const specifier of kernelModules) {
    const library = await importLibrary(specifier);
    if (runs(library)) libraries.push(library);
  }
  let needsDefaults = always;
  if (!needsDefaults) {
    const user = createKernelRegistryOf(libraries);
    needsDefaults = callList.some((call) => !call.kernel.startsWith(WASM_PREFIX) && !bindKernel(call, user, new Map()));
  }
  if (!needsDefaults) return kernelSetOf(libraries);
  const set = kernelSetOf([...libraries, ...(await loadDefaultLibraries()).filter(runs)]);
  if (kernelModules.length === 0) defaultSets.set(kindsKey, set);
  return set;
}

/** Instantiates the model's KERNELS modules over the device memory (per thread). */
export async function instantiateWasmKernels(
  modules: readonly { name: string; module: unknown }[],
  instantiate: (module: unknown) => Promise<Readonly<Record<string, unknown>>>,
): Promise<Map<string, WasmKernel>> {
  const exports = new Map<string, WasmKernel>();
  for (const { name, module } of modules) {
    for (const [exportName, value] of Object.entries(await instantiate(module))) {
      if (typeof value === 'function') exports.set(`${WASM_PREFIX}${name}:${exportName}`, value as WasmKernel);
    }
  }
  return exports;
}

/**
 * The implementation a task names, or undefined when this thread has none. With `substitute`, a
 * call whose implementation the device does not run (a 'wasm-simd' kernel on the js device) gets
 * the op's reference kernel instead, when that kernel tolerates the aliasing the plan relies on.
 */
export function bindKernel(
  call: KernelCall,
  registry: KernelRegistry,
  wasmKernels: ReadonlyMap<string, WasmKernel>,
  substitute = false,
): BoundKernel | undefined {
  if (call.kernel.startsWith(WASM_PREFIX)) {
    const run = wasmKernels.get(call.kernel);
    return run ? { kind: 'wasm', run } : undefined;
  }
  const kernel = registry.find(call.opType, call.domain, call.inputDtype, [call.kernel]);
  if (kernel && kernel.name === call.kernel) return { kind: 'js', kernel };
  if (!substitute) return undefined;
  const reference = registry.find(call.opType, call.domain, call.inputDtype, [REFERENCE]);
  return reference?.name === REFERENCE && aliasingFits(call, reference) ? { kind: 'js', kernel: reference } : undefined;
}

const REFERENCE = 'reference';

/** Whether every input/output pair the plan placed on overlapping bytes is one the kernel allows. */
function aliasingFits(call: KernelCall, kernel: KernelV1): boolean {
  return call.inputs.every((input, i) =>
    call.outputs.every((output, o) => {
      const overlaps =
        input.region === output.region &&
        input.region !== 'none' &&
        input.region !== 'dynamic' &&
        input.offset < output.offset + output.bytes &&
        output.offset < input.offset + input.bytes;
      return !overlaps || (kernel.inPlace ?? []).some(([a, b]) => a === i && b === o);
    }),
  );
}

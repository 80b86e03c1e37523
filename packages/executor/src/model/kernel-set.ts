import type { KernelRegistry, KernelV1 } from '@tsge/metadef';
import { createDefaultKernelRegistry, createKernelRegistry, referenceKernels } from '@tsge/ops';
import type { WasmMemory, WasmModule } from '@tsge/runtime';
import { wasm } from '@tsge/runtime';
import type { KernelCall } from './kernel-call.js';

/** A generated WebAssembly kernel: called with the byte addresses of inputs, outputs, workspace. */
export type WasmKernel = (...addresses: number[]) => unknown;

/** How a call is executed: a registry kernel or an export of a KERNELS module. */
export type BoundKernel = { readonly kind: 'js'; readonly kernel: KernelV1 } | { readonly kind: 'wasm'; readonly run: WasmKernel };

const WASM_PREFIX = 'wasm:';

/**
 * The kernels a model may use: those of `kernelModules` (modules exporting `kernels`) first, then
 * `@tsge/ops`'s defaults. The same function runs on the calling thread and in each worker.
 */
export async function loadKernelRegistry(kernelModules: readonly string[]): Promise<KernelRegistry> {
  if (kernelModules.length === 0) return createDefaultKernelRegistry();
  const registry = createKernelRegistry();
  const taken = new Set<string>();
  const add = (kernel: KernelV1): void => {
    const key = `${kernel.domain}::${kernel.opType}::${kernel.name}`;
    if (taken.has(key)) return;
    taken.add(key);
    registry.register(kernel);
  };
  for (const specifier of kernelModules) {
    const module = (await import(specifier)) as { kernels?: readonly KernelV1[] };
    if (!Array.isArray(module.kernels)) throw new TypeError(`kernel module ${specifier} does not export a kernels array`);
    for (const kernel of module.kernels) add(kernel);
  }
  for (const kernel of referenceKernels()) add(kernel);
  return registry;
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

import type { KernelRegistry, OpRegistry } from '@tsge/metadef';
import { createKernelRegistryOf } from '@tsge/metadef';
import { jsKernelLibrary } from '@tsge/kernels-js';
import { wasmKernelLibrary } from '@tsge/kernels-wasm';
import { createDefaultOpRegistry } from '@tsge/ops';

/**
 * The registries a process uses by default: every op definition of @tsge/ops, and the kernels of
 * @tsge/kernels-js and @tsge/kernels-wasm (the libraries the executor loads for the CPU device).
 */
export interface Registries {
  readonly ops: OpRegistry;
  readonly kernels: KernelRegistry;
}

let defaults: Registries | undefined;

export function defaultRegistries(): Registries {
  defaults ??= { ops: createDefaultOpRegistry(), kernels: createKernelRegistryOf([jsKernelLibrary, wasmKernelLibrary]) };
  return defaults;
}

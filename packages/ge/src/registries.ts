import type { KernelRegistry, OpRegistry } from '@tsge/metadef';
import { createDefaultKernelRegistry, createDefaultOpRegistry } from '@tsge/ops';

/** The registries a process uses by default: every op definition and reference kernel of @tsge/ops. */
export interface Registries {
  readonly ops: OpRegistry;
  readonly kernels: KernelRegistry;
}

let defaults: Registries | undefined;

export function defaultRegistries(): Registries {
  defaults ??= { ops: createDefaultOpRegistry(), kernels: createDefaultKernelRegistry() };
  return defaults;
}

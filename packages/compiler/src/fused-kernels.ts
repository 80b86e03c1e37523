// Entry `@tsge/compiler/fused-kernels`: the kernels of tsge fused ops as a module exporting
// `kernels`, the shape the executor's `kernelModules` option loads (models compiled at O3 need it).
import type { KernelV1 } from '@tsge/metadef';
import { createDefaultKernelRegistry, createDefaultOpRegistry } from '@tsge/ops';
import { fusedOpSupport } from './fusion/fused-ops.js';

export const kernels: readonly KernelV1[] = fusedOpSupport(createDefaultOpRegistry(), createDefaultKernelRegistry()).kernels;

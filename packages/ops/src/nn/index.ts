import type { KernelV1, OpDefinitionV1 } from '@tsge/metadef';

/** Op definitions of the nn group. */
export const nnOps: readonly OpDefinitionV1[] = [];
/** Reference kernels of the nn group. */
export const nnKernels: readonly KernelV1[] = [];

import type { KernelV1, OpDefinitionV1 } from '@tsge/metadef';

/** Op definitions of the tensor group. */
export const tensorOps: readonly OpDefinitionV1[] = [];
/** Reference kernels of the tensor group. */
export const tensorKernels: readonly KernelV1[] = [];

import type { KernelV1, OpDefinitionV1 } from '@tsge/metadef';

/** Op definitions of the ml group. */
export const mlOps: readonly OpDefinitionV1[] = [];
/** Reference kernels of the ml group. */
export const mlKernels: readonly KernelV1[] = [];

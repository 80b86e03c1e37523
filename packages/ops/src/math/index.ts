import type { KernelV1, OpDefinitionV1 } from '@tsge/metadef';

/** Op definitions of the math group. */
export const mathOps: readonly OpDefinitionV1[] = [];
/** Reference kernels of the math group. */
export const mathKernels: readonly KernelV1[] = [];

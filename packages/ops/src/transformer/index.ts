import type { KernelV1, OpDefinitionV1 } from '@tsge/metadef';

/** Op definitions of the transformer group. */
export const transformerOps: readonly OpDefinitionV1[] = [];
/** Reference kernels of the transformer group. */
export const transformerKernels: readonly KernelV1[] = [];

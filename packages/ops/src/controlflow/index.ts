import type { KernelV1, OpDefinitionV1 } from '@tsge/metadef';

/** Op definitions of the controlflow group. */
export const controlflowOps: readonly OpDefinitionV1[] = [];
/** Reference kernels of the controlflow group. */
export const controlflowKernels: readonly KernelV1[] = [];

import type { KernelV1, OpDefinitionV1 } from '@tsge/metadef';
import { activationKernels, activationOps } from './activations.js';
import { convKernels, convOps } from './conv.js';
import { normalizationKernels, normalizationOps } from './normalization.js';
import { poolKernels, poolOps } from './pool.js';
import { preluKernels, preluOps } from './prelu.js';
import { softmaxKernels, softmaxOps } from './softmax.js';

/** Op definitions of the nn group. */
export const nnOps: readonly OpDefinitionV1[] = [...activationOps, ...preluOps, ...softmaxOps, ...convOps, ...poolOps, ...normalizationOps];
/** Reference kernels of the nn group. */
export const nnKernels: readonly KernelV1[] = [
  ...activationKernels,
  ...preluKernels,
  ...softmaxKernels,
  ...convKernels,
  ...poolKernels,
  ...normalizationKernels,
];

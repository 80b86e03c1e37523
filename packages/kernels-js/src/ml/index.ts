import type { KernelV1 } from '@tsge/metadef';
import { featureKernels } from './feature-ops.js';
import { labelEncoderKernels } from './label-encoder.js';
import { trainingKernels } from './training-optimizers.js';
import { treeEnsembleKernels } from './tree-ensemble.js';
/** Reference kernels of the ml group. */
export const mlKernels: readonly KernelV1[] = [...labelEncoderKernels, ...featureKernels, ...treeEnsembleKernels, ...trainingKernels];

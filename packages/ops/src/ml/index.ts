import type { KernelV1, OpDefinitionV1 } from '@tsge/metadef';
import { featureKernels, featureOps } from './feature-ops.js';
import { labelEncoderKernels, labelEncoderOps } from './label-encoder.js';
import { trainingKernels, trainingOps } from './training-optimizers.js';
import { treeEnsembleKernels, treeEnsembleOps } from './tree-ensemble.js';

export { ML_DOMAIN } from './ml-domain.js';
export { TRAINING_DOMAIN } from './training-optimizers.js';

/** Op definitions of the ml group (domains ai.onnx.ml and ai.onnx.preview.training). */
export const mlOps: readonly OpDefinitionV1[] = [...labelEncoderOps, ...featureOps, ...treeEnsembleOps, ...trainingOps];
/** Reference kernels of the ml group. */
export const mlKernels: readonly KernelV1[] = [...labelEncoderKernels, ...featureKernels, ...treeEnsembleKernels, ...trainingKernels];

import type { KernelV1, OpDefinitionV1 } from '@tsge/metadef';
import { featureKernels, featureOps } from './feature-ops.js';
import { labelEncoderKernels, labelEncoderOps } from './label-encoder.js';
import { treeEnsembleKernels, treeEnsembleOps } from './tree-ensemble.js';

export { ML_DOMAIN } from './ml-domain.js';

/** Op definitions of the ml group (domain ai.onnx.ml). */
export const mlOps: readonly OpDefinitionV1[] = [...labelEncoderOps, ...featureOps, ...treeEnsembleOps];
/** Reference kernels of the ml group. */
export const mlKernels: readonly KernelV1[] = [...labelEncoderKernels, ...featureKernels, ...treeEnsembleKernels];

import type { OpDefinitionV1 } from '@tsge/metadef';
import { featureOps } from './feature-ops.js';
import { labelEncoderOps } from './label-encoder.js';
import { trainingOps } from './training-optimizers.js';
import { treeEnsembleOps } from './tree-ensemble.js';
export { ML_DOMAIN } from './ml-domain.js';
export { TRAINING_DOMAIN } from './training-optimizers.js';

/** Op definitions of the ml group (domains ai.onnx.ml and ai.onnx.preview.training). */
export const mlOps: readonly OpDefinitionV1[] = [...labelEncoderOps, ...featureOps, ...treeEnsembleOps, ...trainingOps];

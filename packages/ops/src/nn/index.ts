import type { KernelV1, OpDefinitionV1 } from '@tsge/metadef';
import { centerCropPadKernels, centerCropPadOps } from './center-crop-pad.js';
import { col2imKernels, col2imOps } from './col2im.js';
import { deformConvKernels, deformConvOps } from './deform-conv.js';
import { gridSampleKernels, gridSampleOps } from './grid-sample.js';
import { maxUnpoolKernels, maxUnpoolOps } from './max-unpool.js';
import { roiPoolKernels, roiPoolOps } from './roi-pool.js';
import { activationKernels, activationOps } from './activations.js';
import { convTransposeKernels, convTransposeOps } from './conv-transpose.js';
import { convKernels, convOps } from './conv.js';
import { dropoutKernels, dropoutOps } from './dropout.js';
import { lossKernels, lossOps } from './losses.js';
import { nonMaxSuppressionKernels, nonMaxSuppressionOps } from './non-max-suppression.js';
import { normalizationKernels, normalizationOps } from './normalization.js';
import { poolKernels, poolOps } from './pool.js';
import { preluKernels, preluOps } from './prelu.js';
import { quantizeKernels, quantizeOps } from './quantize.js';
import { recurrentKernels, recurrentOps } from './recurrent.js';
import { resizeKernels, resizeOps } from './resize.js';
import { softmaxKernels, softmaxOps } from './softmax.js';

/** Op definitions of the nn group. */
export const nnOps: readonly OpDefinitionV1[] = [
  ...activationOps,
  ...preluOps,
  ...softmaxOps,
  ...convOps,
  ...convTransposeOps,
  ...poolOps,
  ...normalizationOps,
  ...dropoutOps,
  ...resizeOps,
  ...recurrentOps,
  ...quantizeOps,
  ...lossOps,
  ...nonMaxSuppressionOps,
  ...roiPoolOps,
  ...maxUnpoolOps,
  ...gridSampleOps,
  ...deformConvOps,
  ...col2imOps,
  ...centerCropPadOps,
];
/** Reference kernels of the nn group. */
export const nnKernels: readonly KernelV1[] = [
  ...activationKernels,
  ...preluKernels,
  ...softmaxKernels,
  ...convKernels,
  ...convTransposeKernels,
  ...poolKernels,
  ...normalizationKernels,
  ...dropoutKernels,
  ...resizeKernels,
  ...recurrentKernels,
  ...quantizeKernels,
  ...lossKernels,
  ...nonMaxSuppressionKernels,
  ...roiPoolKernels,
  ...maxUnpoolKernels,
  ...gridSampleKernels,
  ...deformConvKernels,
  ...col2imKernels,
  ...centerCropPadKernels,
];

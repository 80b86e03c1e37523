import type { OpDefinitionV1 } from '@tsge/metadef';
import { centerCropPadOps } from './center-crop-pad.js';
import { col2imOps } from './col2im.js';
import { dynamicQuantizeMatMulOps } from './dynamic-quantize-matmul.js';
import { gatherBlockQuantizedOps } from './gather-block-quantized.js';
import { matMulNBitsOps } from './matmul-nbits.js';
import { deformConvOps } from './deform-conv.js';
import { gridSampleOps } from './grid-sample.js';
import { maxUnpoolOps } from './max-unpool.js';
import { roiPoolOps } from './roi-pool.js';
import { activationOps } from './activations.js';
import { convTransposeOps } from './conv-transpose.js';
import { convOps } from './conv.js';
import { dropoutOps } from './dropout.js';
import { lossOps } from './losses.js';
import { nonMaxSuppressionOps } from './non-max-suppression.js';
import { normalizationOps } from './normalization.js';
import { poolOps } from './pool.js';
import { preluOps } from './prelu.js';
import { quantizeOps } from './quantize.js';
import { recurrentOps } from './recurrent.js';
import { resizeOps } from './resize.js';
import { softmaxOps } from './softmax.js';

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
  ...matMulNBitsOps,
  ...gatherBlockQuantizedOps,
  ...dynamicQuantizeMatMulOps,
  ...col2imOps,
  ...centerCropPadOps,
];

import type { KernelV1 } from '@tsge/metadef';
import { centerCropPadKernels } from './center-crop-pad.js';
import { col2imKernels } from './col2im.js';
import { deformConvKernels } from './deform-conv.js';
import { detectionOutputKernel } from './detection-output.js';
import { dynamicQuantizeMatMulKernels } from './dynamic-quantize-matmul.js';
import { gatherBlockQuantizedKernels } from './gather-block-quantized.js';
import { matMulNBitsKernels } from './matmul-nbits.js';
import { gridSampleKernels } from './grid-sample.js';
import { maxUnpoolKernels } from './max-unpool.js';
import { roiPoolKernels } from './roi-pool.js';
import { activationKernels } from './activations.js';
import { convTransposeKernels } from './conv-transpose.js';
import { convKernels } from './conv.js';
import { dropoutKernels } from './dropout.js';
import { lossKernels } from './losses.js';
import { nonMaxSuppressionKernels } from './non-max-suppression.js';
import { normalizationKernels } from './normalization.js';
import { poolKernels } from './pool.js';
import { preluKernels } from './prelu.js';
import { quantizeKernels } from './quantize.js';
import { recurrentKernels } from './recurrent.js';
import { quantizedAddKernel } from './quantized-add.js';
import { swigluKernel } from './swiglu.js';
import { applyRotaryKernel } from './apply-rotary.js';
import { packedMatMulKernel } from './packed-matmul.js';
import { packedMatMulIntegerKernel } from './packed-matmul-integer.js';
import { requantizedConvKernel } from './requantized-conv.js';
import { resizeKernels } from './resize.js';
import { softmaxKernels } from './softmax.js';
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
  requantizedConvKernel,
  quantizedAddKernel,
  detectionOutputKernel,
  swigluKernel,
  applyRotaryKernel,
  packedMatMulKernel,
  packedMatMulIntegerKernel,
  ...lossKernels,
  ...nonMaxSuppressionKernels,
  ...roiPoolKernels,
  ...maxUnpoolKernels,
  ...gridSampleKernels,
  ...deformConvKernels,
  ...matMulNBitsKernels,
  ...gatherBlockQuantizedKernels,
  ...dynamicQuantizeMatMulKernels,
  ...col2imKernels,
  ...centerCropPadKernels,
];

/**
 * `@tsge/kernels-js/kernel-support`: the reference kernels and helpers that @tsge/kernels-wasm builds
 * on (its kernels fall back to the reference kernel where they do not apply). Not part of the
 * user-facing API (`@tsge/kernels-js`).
 */
export { legacyAlignedSecond } from './common/math-binary.js';
export { broadcastStaticDims, planBroadcastRows } from './common/math-broadcast-rows.js';
export { windowGatherTable, windowGeometry } from './common/nn-conv-geometry.js';
export { transposeInto } from './common/tensor-copy.js';
export { defineKernel } from './define.js';
export { applyActivation } from './fused/activation.js';
export { captureOutput } from './fused/fused-ops.js';
export {
  checkEpilogueKind,
  checkOperands,
  descriptionOf,
  descriptionRows,
  interpretDescription,
  epilogueOperands,
  outputDims,
} from './fused/generated-kernel.js';
export { applyEpilogue, elementwiseTask, epilogueDescription } from './fused/epilogue.js';
export { fusedElementwiseKernel } from './fused/fused-elementwise.js';
export { runKernelOnHost } from './host/run-on-host.js';
export { mathKernels } from './math/index.js';
export { convProblem, type ConvProblem } from './nn/conv.js';
export { nnKernels } from './nn/index.js';
export { type ResizePass, type ResizeTaps, resizePasses } from './nn/resize.js';
export { logicalWeight, packedWeightOf, requantize, requantizedRange } from './nn/requantized-conv.js';
export { rotaryStrides, rowOffset } from './nn/apply-rotary.js';
export { packedMatMulEpilogue, packedMatMulShape } from './nn/packed-matmul.js';
export { packedPanelsOf } from './nn/packed-matmul-integer.js';
export { type GroupQueryAttentionCall, readGroupQueryAttention } from './transformer/group-query-attention.js';
export { rotate, sameStorage } from './transformer/group-query-attention-in-place.js';
export { type QuantizedAddParams, quantizedAddParams, quantizedAddValue } from './nn/quantized-add.js';
export { tensorKernels } from './tensor/index.js';

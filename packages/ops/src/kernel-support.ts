/**
 * `@tsge/ops/kernel-support`: what kernel libraries (@tsge/kernels-js, @tsge/kernels-wasm) share with
 * the op definitions — attribute readers, shape arithmetic, dtype lists and the per-op tables both
 * sides are built from — so a kernel and its op's inference read attributes and shapes one way.
 * Not part of the user-facing API (`@tsge/ops`).
 */
export type { NumberRow, BinaryImpl } from './common/math-binary.js';
export { normalizeAxes as mathReduceAxesNormalizeAxes } from './common/math-reduce-axes.js';
export type { NumberArray } from './common/math-values.js';
export { type WindowAttrs, windowOutputSize, readWindowAttrs } from './common/nn-conv-geometry.js';
export { type FloatArray, dimProduct } from './common/nn-float-io.js';
export { inferOnValues } from './common/tensor-harness.js';
export { whereOf, normalizeAxisInclusive } from './common/tensor-infer.js';
export { reflectPadsProblem } from './tensor/pad-check.js';
export { scanAxes, isScan8 } from './controlflow/if-loop-scan.js';
export { controlflowOps } from './controlflow/index.js';
export { dtypeAttr } from './controlflow/sequence.js';
export {
  SEQUENCE_CONCAT,
  SEQUENCE_LENGTHS,
  SEQUENCE_READ,
  SEQUENCE_RESERVE,
  SEQUENCE_RESIZE,
  SEQUENCE_SET,
  SEQUENCE_SLOT_ROWS,
} from './controlflow/sequence-slots.js';
export { EXTRA_BIAS, FUSED_BASE_OF, FUSED_CONV } from './fused/fused-ops.js';
export { FUSED_ELEMENTWISE } from './fused/fused-elementwise.js';
export { REQUANTIZED_CONV } from './fused/requantized-conv.js';
export {
  PACKED_WEIGHT,
  PACKED_WEIGHT_ROWS,
  type PackedWeightShape,
  packedWeightMismatch,
  packedWeightShape,
  paddedRow,
  unpackIntWeights,
} from './fused/packed-int-weights.js';
export { QUANTIZED_ADD } from './fused/quantized-add.js';
export {
  DETECTION_OUTPUT,
  type DetectionOutputAttrs,
  detectionOutputLayout,
  readDetectionOutputAttrs,
} from './detection/detection-output.js';
export { SWIGLU } from './fused/swiglu.js';
export { APPLY_ROTARY } from './fused/apply-rotary.js';
export { PACKED_MATMUL, PACKED_MATMUL_PANEL } from './fused/packed-matmul.js';
export { PACKED_MATMUL_INTEGER } from './fused/packed-matmul-integer.js';
export {
  INT_PANEL_BYTES,
  type PackedPanelsShape,
  intSumsFit,
  packedPanelsMismatch,
  packedPanelsShape,
  unpackIntPanels,
} from './fused/packed-int-panels.js';
export { IMPLS as bitwiseIMPLS } from './math/bitwise.js';
export { readTargetType } from './math/cast.js';
export { IMPLS as comparisonIMPLS } from './math/comparison.js';
export { type EinsumPlan, parseEinsum } from './math/einsum.js';
export { rangeCount } from './math/generators.js';
export { mathOps } from './math/index.js';
export { IMPLS as logicalIMPLS } from './math/logical.js';
export { FLOATS } from './math/op-types.js';
export { type Kind, REDUCE } from './math/reduce.js';
export { compileFullMatch } from './math/strings.js';
export { outputWidth } from './math/tfidf.js';
export { normalizeAxis } from './math/topk-hardmax.js';
export { roundHalfEven, type UnaryDef, UNARY } from './math/unary.js';
export { type Combine, OPS } from './math/variadic.js';
export { type Table, labelTable, type Scalar, tensorScalars } from './ml/label-encoder.js';
export { ML_DOMAIN } from './ml/ml-domain.js';
export { TRAINING_DOMAIN } from './ml/training-optimizers.js';
export { erf, ACTIVATIONS } from './nn/activations.js';
export { type TransposeAttrs, type TransposeGeometry, readTransposeAttrs, transposeGeometry } from './nn/conv-transpose.js';
export { nnOps } from './nn/index.js';
export { unpoolDims } from './nn/max-unpool.js';
export { stashType } from './nn/normalization.js';
export { quantizedOutputType } from './nn/quantize.js';
export { normalizeAxes as resizeNormalizeAxes, planResize } from './nn/resize.js';
export { splitSizes } from './tensor/concat-split.js';
export { constantValue } from './tensor/identity-constant.js';
export { tensorOps } from './tensor/index.js';
export { fullPads } from './tensor/pad.js';
export { resolveReshape, flattenShape, squeezeShape, unsqueezeShape } from './tensor/reshape.js';
export { shapeRange } from './tensor/shape-ops.js';
export { type SliceArgs, sliceArgs, clampSlice } from './tensor/slice.js';
export { permutation } from './tensor/transpose.js';
export { attentionShapesProblem } from './transformer/attention-geometry.js';
export { PREVIEW_DOMAIN } from './transformer/flex-attention.js';
export { transformerOps } from './transformer/index.js';

export {
  FUSED_CONV,
  FUSED_GEMM,
  FUSED_MATMUL,
  FUSED_BASE_OF,
  FUSABLE_ACTIVATIONS,
  type FusableActivation,
  fusedDefinitions,
} from './fused-ops.js';
export { REQUANTIZED_CONV, requantizedConvDefinition } from './requantized-conv.js';
export { PACKED_WEIGHT, type PackedWeightShape, packIntWeights, packedWeightAttr, packedWeightShape } from './packed-int-weights.js';
export { QUANTIZED_ADD, QUANTIZED_ADD_MAX_MULTIPLIER, quantizedAddDefinition } from './quantized-add.js';
export { FUSED_ELEMENTWISE, fusedElementwiseDefinition } from './fused-elementwise.js';
export { SWIGLU, swigluDefinition } from './swiglu.js';
export { APPLY_ROTARY, applyRotaryDefinition } from './apply-rotary.js';
export { PACKED_MATMUL, PACKED_MATMUL_PANEL, packedMatMulDefinition } from './packed-matmul.js';
export { PACKED_MATMUL_INTEGER, packedMatMulIntegerDefinition } from './packed-matmul-integer.js';
export {
  type PackedPanelsShape,
  intPanelColumns,
  intSumsFit,
  packIntPanels,
  packedPanelsAttr,
  packedPanelsShape,
} from './packed-int-panels.js';

// @tsge/ops public API: the canonical op set (ONNX, latest opset) as op definitions — schema and one
// shape/type inference function each. Kernels live in @tsge/kernels-js and @tsge/kernels-wasm.
import type { OpDefinitionV1, OpRegistry } from '@tsge/metadef';
import { createOpRegistry } from '@tsge/metadef';
import { controlflowOps } from './controlflow/index.js';
import { sequenceSlotDefinitions } from './controlflow/sequence-slots.js';
import { detectionOutputDefinition } from './detection/detection-output.js';
import {
  fusedDefinitions,
  fusedElementwiseDefinition,
  quantizedAddDefinition,
  requantizedConvDefinition,
  swigluDefinition,
  applyRotaryDefinition,
  packedMatMulDefinition,
  packedMatMulIntegerDefinition,
} from './fused/index.js';
import { mathOps } from './math/index.js';
import { mlOps } from './ml/index.js';
import { nnOps } from './nn/index.js';
import { tensorOps } from './tensor/index.js';
import { transformerOps } from './transformer/index.js';

export { defineOp, param, type OpSpec } from './define.js';
// Types this API names, so users can spell every signature by importing @tsge/ops alone.
export type {
  AttrKind,
  AttrReader,
  AttrSpec,
  AttrValue,
  DATA_TYPES,
  DataType,
  Diagnostic,
  DiagnosticLocation,
  Dim,
  DimRange,
  FORMATS,
  Format,
  HostTensor,
  InferenceContextV1,
  NamedAttrs,
  OpDefinitionV1,
  OpRegistry,
  ParamOption,
  ParamSpec,
  Severity,
  Shape,
  TensorDesc,
  TensorStorage,
  TypeConstraint,
  TypedArray,
  ValueInfo,
} from '@tsge/metadef';
export {
  FUSED_CONV,
  FUSED_GEMM,
  FUSED_MATMUL,
  FUSED_BASE_OF,
  FUSABLE_ACTIVATIONS,
  type FusableActivation,
  fusedDefinitions,
  REQUANTIZED_CONV,
  PACKED_WEIGHT,
  type PackedWeightShape,
  packIntWeights,
  packedWeightAttr,
  packedWeightShape,
  QUANTIZED_ADD,
  SWIGLU,
  swigluDefinition,
  APPLY_ROTARY,
  applyRotaryDefinition,
  PACKED_MATMUL,
  PACKED_MATMUL_PANEL,
  packedMatMulDefinition,
  PACKED_MATMUL_INTEGER,
  packedMatMulIntegerDefinition,
  type PackedPanelsShape,
  intPanelColumns,
  intSumsFit,
  packIntPanels,
  packedPanelsAttr,
  packedPanelsShape,
  FUSED_ELEMENTWISE,
  fusedElementwiseDefinition,
} from './fused/index.js';
export { DETECTION_OUTPUT } from './detection/detection-output.js';
export { shapeRange } from './tensor/shape-ops.js';

/** Every op definition tsge ships: the ONNX op set plus the `tsge` ops (fused ops, sequence slots). */
export function defaultOpDefinitions(): readonly OpDefinitionV1[] {
  const onnx = [...mathOps, ...nnOps, ...tensorOps, ...transformerOps, ...controlflowOps, ...mlOps];
  return [
    ...onnx,
    ...fusedDefinitions(onnx),
    requantizedConvDefinition,
    quantizedAddDefinition,
    fusedElementwiseDefinition,
    detectionOutputDefinition,
    swigluDefinition,
    applyRotaryDefinition,
    packedMatMulDefinition,
    packedMatMulIntegerDefinition,
    ...sequenceSlotDefinitions,
  ];
}
/** A fresh registry holding every op definition. */
export function createDefaultOpRegistry(): OpRegistry {
  return createOpRegistry(defaultOpDefinitions());
}

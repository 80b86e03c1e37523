// @tsge/metadef public API. Everything exported here is covered by the API report (etc/).

// errors and diagnostics
export { ErrorCatalog, type ErrorCode, formatMessage } from './errors/catalog.js';
export { type Diagnostic, type DiagnosticLocation, type Severity, DiagnosticBag, formatDiagnostic } from './errors/diagnostic.js';
export { TsgeError, diagnostic } from './errors/tsge-error.js';

// types
export {
  DATA_TYPES,
  type DataType,
  isDataType,
  ONNX_DTYPE,
  GE_DTYPE,
  dataTypeFromOnnx,
  dataTypeFromGe,
  DTYPE_BYTES,
  type TypedArray,
  type TypedArrayConstructor,
  type TensorStorage,
  storageConstructor,
  storageLanes,
  FLOAT_TYPES,
  INT_TYPES,
  NUMERIC_TYPES,
  ALL_TENSOR_TYPES,
  isFloatType,
  isBigIntType,
} from './types/dtype.js';
export { FORMATS, type Format, isFormat } from './types/format.js';
export {
  type Dim,
  type Shape,
  UNKNOWN_DIM,
  UNKNOWN_RANK_SHAPE,
  isUnknownRank,
  isStaticDim,
  isStaticShape,
  shapeSize,
  elementCount,
  shapeToString,
  shapesEqual,
  stridesOf,
  broadcastShapes,
} from './types/shape.js';
export {
  type HostTensor,
  type SequenceValue,
  type OptionalValue,
  type RuntimeValue,
  isSequenceValue,
  isOptionalValue,
  isHostTensor,
  allocateStorage,
  createTensor,
  tensorElementCount,
  readNumber,
  toNumberArray,
  float16ToNumber,
  numberToFloat16,
  bfloat16ToNumber,
  numberToBfloat16,
} from './types/tensor.js';
export { type DimRange, type TensorDesc, createTensorDesc, cloneTensorDesc } from './types/tensor-desc.js';
export {
  type AttrValue,
  type AttrKind,
  type AttrMap,
  type NamedAttrs,
  type AttrReader,
  AttrError,
  attr,
  createAttrReader,
} from './types/attr.js';

// graph
export {
  type OpDesc,
  type OpDescInit,
  createOpDesc,
  cloneOpDesc,
  normalizeDomain,
  ONNX_DOMAIN,
  TSGE_DOMAIN,
  DATA,
  CONST,
  NET_OUTPUT,
  VARIABLE,
  NO_OP,
  ATTR_INDEX,
  ATTR_VALUE,
  ATTR_PARENT_NODE_INDEX,
} from './graph/op-desc.js';
export { Node, type InDataAnchor, type OutDataAnchor, type InControlAnchor, type OutControlAnchor } from './graph/node.js';
export { Graph } from './graph/graph.js';
export { opsetOf } from './graph/opset.js';
export { type TopoOrder, type TopoResult, topologicalSort, reachableFrom, isReachable, ancestorsOf } from './graph/topo.js';

// op definitions
export {
  type ParamOption,
  type ParamSpec,
  type AttrSpec,
  type TypeConstraint,
  type ValueInfo,
  type InferenceContextV1,
  type OpDefinitionV1,
  type OpPatternKind,
  InferenceError,
} from './ops/op-definition.js';
export {
  KERNEL_DESCRIPTION_MAGIC,
  KERNEL_DESCRIPTION_VERSION,
  KERNEL_LIMITS,
  KernelKind,
  KernelDtype,
  RUNTIME_DIM,
  CONTIGUOUS,
  KOp,
  type KOpCode,
  isUnaryKOp,
  isRowReductionKOp,
  registerPasses,
  rowPasses,
  type RowPass,
  type KernelInstruction,
  type KernelInputDesc,
  type KernelDescription,
  encodeKernelDescription,
  decodeKernelDescription,
  kernelElements,
} from './kernel-ir/kernel-description.js';
export { type RuntimeShapes, isRuntimeSized, resolveRuntimeSized, runtimeLayoutGroups } from './kernel-ir/runtime-sized.js';
export { broadcastStrides, runStride } from './kernel-ir/broadcast-strides.js';
export { type OpRegistry, createOpRegistry, opKey } from './ops/op-registry.js';
export { type InferNodeOptions, inferNode, valueInfoOf, constValueOf } from './ops/infer-node.js';
export { type WindowInputs, MAX_WINDOW_VALUE, isWindowOp, windowAttrsProblem } from './ops/window-attrs.js';

// builder
export { GraphBuilder, type GraphBuilderOptions, type OpOptions, type Value } from './builder/graph-builder.js';

// plugin interfaces (SPI)
export type { ParserV1, ParseInput, ParseOptions, ParseResult } from './spi/parser.js';
export type { GraphPassV1, PassContext, PassResult, PassStage, OptLevel } from './spi/pass.js';
export type { FusionPassV1, FusionPattern, FusionMatch } from './spi/fusion.js';
export type {
  CompiledCodeV1,
  KernelV1,
  KernelContextV1,
  KernelPlanInputV1,
  KernelRegistry,
  KernelLibraryV1,
  ParallelRunnerV1,
  ThreadWorkspaceV1,
  TileFunctionV1,
} from './spi/kernel.js';
export { createKernelRegistry, createKernelRegistryOf, type LibraryKernelRegistry } from './ops/kernel-registry.js';
export { isDeviceError } from './spi/device.js';
export type {
  DeviceErrorV1,
  EventTableV1,
  LaunchV1,
  StreamTaskV1,
  StreamWorkV1,
  DeviceV1,
  DeviceFactoryV1,
  DeviceOptionsV1,
  DeviceWorkerContextV1,
  DeviceWorkersV1,
  DeviceRangeV1,
  KernelDeviceKind,
  ScratchAllocatorV1,
  StreamHandle,
  EventHandle,
  LinearMemory,
} from './spi/device.js';
export { type DeviceRegistry, createDeviceRegistry } from './spi/device-registry.js';

// .air serialization (GE ge.proto.ModelDef)
export { serializeAir, type SerializeAirOptions } from './air/serialize-air.js';
export { parseAir, type ParseAirOptions, type ParseAirResult } from './air/parse-air.js';

// verifier and dumps
export { verifyGraph, type VerifyOptions } from './verify/verify-graph.js';
export { describeGraph, graphsStructurallyEqual } from './dump/describe-graph.js';
export { graphToJson, GRAPH_JSON_VERSION, type GraphJson, type GraphJsonOptions, type JsonValue } from './dump/graph-to-json.js';
export { graphToDot, type GraphDotOptions } from './dump/graph-to-dot.js';
export { airParser } from './air/air-parser.js';

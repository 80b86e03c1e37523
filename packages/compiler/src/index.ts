// @tsge/compiler public API.
export { compile, builtinPassNames } from './compile.js';
export type {
  CompileOptions,
  CompileResult,
  CompileSummary,
  CompileProgress,
  CompileTarget,
  PassTiming,
  PrecisionMode,
} from './options.js';
export { PassManager, definePass, type PassManagerOptions } from './pass-manager.js';
export { matchAt, findMatches, fusionAsPass, replaceMatchWith } from './fusion/matcher.js';
export { pattern as fusionPattern } from './fusion/patterns.js';
export { builtinFusions } from './fusion/builtin.js';
export { registerFusedOps } from './fusion/fused-ops.js';
export { planMemory, type Buffer as MemoryBuffer, type MemoryPlan, type MemoryPlanInput } from './build/memory-plan.js';
export { memoryBounds, type Lifetime } from './build/memory-bounds.js';
export { planStreams, happensBefore, type StreamPlan, type SyncPoint } from './build/streams.js';
export { defineNodePass, type NodePassSpec, MAX_VISITS_PER_NODE } from './node-pass.js';
// Types this API names, so users can spell every signature by importing @tsge/compiler alone.
export type {
  AttrKind,
  AttrMap,
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
  FusionMatch,
  FusionPassV1,
  FusionPattern,
  Graph,
  GraphPassV1,
  HostTensor,
  InControlAnchor,
  InDataAnchor,
  InferenceContextV1,
  KernelContextV1,
  KernelPlanInputV1,
  KernelRegistry,
  KernelV1,
  LinearMemory,
  NamedAttrs,
  Node,
  OpDefinitionV1,
  OpDesc,
  OpRegistry,
  OptLevel,
  OptionalValue,
  OutControlAnchor,
  OutDataAnchor,
  ParallelRunnerV1,
  ParamOption,
  ParamSpec,
  PassContext,
  PassResult,
  PassStage,
  RuntimeValue,
  SequenceValue,
  Severity,
  Shape,
  TensorDesc,
  TensorStorage,
  TypeConstraint,
  TypedArray,
  Value,
  ValueInfo,
  KernelDescription,
  KernelInputDesc,
  KernelInstruction,
  KOpCode,
} from '@tsge/metadef';
export type {
  ExecutionPlan,
  IoInfo,
  IoTensorInfo,
  KernelModule,
  MemoryReport,
  OmHeader,
  OmModel,
  OmWriteInput,
  PlainAttr,
  StreamInfo,
  Task,
  TaskInfo,
  WeightStorage,
  TensorRef,
} from '@tsge/om';
export { PRECISION_MODES } from './passes/precision-modes.js';

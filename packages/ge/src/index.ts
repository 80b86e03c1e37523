// @tsge/ge: the user-facing API (GE's api/): the front door (InferenceSession), and parse,
// compile, load and run as separate steps.
export {
  InferenceSession,
  type InferenceSessionOptions,
  type ModelSource,
  type SessionOrigin,
} from './inference-session.js';
export type { CompileCacheOptions } from './compile-cache.js';
export { initialize, finalize, type GeOptions } from './initialize.js';
export {
  parseModel,
  registerParser,
  listParsers,
  discoverParsers,
  PARSERS_SELECTING_OUTPUTS,
  type ParseModelOptions,
} from './parsers.js';
export { buildModel, compileModel, loadModel, type BuildOptions } from './model.js';
export { Session, type SessionOptions } from './session.js';
export { defaultRegistries, type Registries } from './registries.js';
export { type ConfinedReader, MAX_FILE_BYTES, confinedReader, describeFileError, fileError, readRegularFile } from './files.js';
export { modelFileOf } from './model-path.js';
// the kernel plans the compiler records on nodes, in words (atc --mode=6)
export { CONV_PLAN, INT_CONV_PLAN, KERNEL_PLAN_ATTRS, describeConvPlan, describeIntConvPlan, describeKernelPlan } from '@tsge/kernels-wasm';
// Flow models (GE model type 3) are read and written here for @tsge/dflow, which sits above ge.
export { writeFlowOm, readFlowOm, type FlowOm, type FlowOmInput, type ReadFlowOmResult } from '@tsge/om';
// reading an .om without running it (atc --mode=1/6, tools that inspect compiled models)
export { readOm, omToJson, type ReadOmOptions, type ReadOmResult } from '@tsge/om';
// What a user handles with the front door, so @tsge/ge is the one import they need.
export { TsgeError, createTensor, type HostTensor as Tensor } from '@tsge/metadef';
// Types this API names, so users can spell every signature by importing @tsge/ge alone.
export type {
  CompileOptions,
  CompileProgress,
  CompileResult,
  CompileSummary,
  CompileTarget,
  PassTiming,
  PrecisionMode,
} from '@tsge/compiler';
export { PRECISION_MODES } from '@tsge/compiler';
export type {
  ChromeTrace,
  DeviceTensor,
  ExecutionMode,
  Executor,
  Feed,
  LoadModelOptions,
  RunOptions,
  RunSyncOptions,
  TensorLike,
  TensorMetadata,
  TraceEvent,
  TraceMetadata,
  WarmUpOptions,
} from '@tsge/executor';
export type {
  AttrKind,
  AttrMap,
  AttrReader,
  AttrSpec,
  AttrValue,
  DATA_TYPES,
  DataType,
  DeviceFactoryV1,
  DeviceOptionsV1,
  DeviceV1,
  DeviceWorkersV1,
  DeviceRangeV1,
  EventTableV1,
  LaunchV1,
  StreamTaskV1,
  StreamWorkV1,
  EventHandle,
  KernelDeviceKind,
  ScratchAllocatorV1,
  StreamHandle,
  Diagnostic,
  DiagnosticLocation,
  Dim,
  DimRange,
  ErrorCatalog,
  ErrorCode,
  FORMATS,
  Format,
  FusionMatch,
  FusionPassV1,
  FusionPattern,
  Graph,
  GraphPassV1,
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
  ParseInput,
  ParseOptions,
  ParseResult,
  ParserV1,
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

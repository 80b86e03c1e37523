// @tsge/executor public API: load an .om model and run it on the CPU device.
export { loadModel } from './load-model.js';
export { openModel } from './open-model.js';
export type {
  Executor,
  ExecutionMode,
  Feed,
  LoadModelOptions,
  RunOptions,
  TensorLike,
  TensorMetadata,
  ChromeTrace,
  TraceEvent,
} from './options.js';
export type { TraceMetadata } from './options.js';
// Types this API names, so users can spell every signature by importing @tsge/executor alone.
export type {
  AttrMap,
  AttrValue,
  DATA_TYPES,
  DataType,
  Dim,
  DimRange,
  FORMATS,
  Format,
  Graph,
  HostTensor,
  InControlAnchor,
  InDataAnchor,
  NamedAttrs,
  Node,
  OpDesc,
  OptionalValue,
  OutControlAnchor,
  OutDataAnchor,
  RuntimeValue,
  SequenceValue,
  Shape,
  TensorDesc,
  TensorStorage,
  TypedArray,
} from '@tsge/metadef';
export type {
  ExecutionPlan,
  IoInfo,
  IoTensorInfo,
  KernelModule,
  MemoryReport,
  OmHeader,
  OmModel,
  PlainAttr,
  StreamInfo,
  Task,
  TaskInfo,
  TensorRef,
} from '@tsge/om';

// @tsge/om public API: the offline model file (see README.md for the byte layout).
export { OM_MAGIC, OM_FORMAT_VERSION, OM_HEADER_SIZE, OM_ALIGNMENT } from './layout.js';
export type {
  PartitionType,
  OmHeader,
  TensorRef,
  Task,
  StreamInfo,
  MemoryReport,
  ExecutionPlan,
  TaskInfo,
  WeightStorage,
  PlainAttr,
  IoTensorInfo,
  IoInfo,
  KernelModule,
  OmModel,
  OmWriteInput,
} from './types.js';
export { writeOm } from './write-om.js';
export { WEIGHT_SPAN } from './weight-storage.js';
export { readOm, tasksCarryAttributes, type ReadOmOptions, type ReadOmResult } from './read-om.js';
export { writeFlowOm, readFlowOm, type FlowOm, type FlowOmInput, type ReadFlowOmResult } from './flow-om.js';
export { omToJson } from './om-to-json.js';
export { crc32 } from './crc32.js';
// the reader's plan/IO_INFO agreement rule, so the compiler never writes a file the reader refuses
export { checkPlanIo, type Check } from './validate-json.js';
// Types this API names, so users can spell every signature by importing @tsge/om alone.
export type {
  AttrMap,
  AttrValue,
  DATA_TYPES,
  DataType,
  Diagnostic,
  DiagnosticLocation,
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
  OutControlAnchor,
  OutDataAnchor,
  Severity,
  Shape,
  TensorDesc,
  TensorStorage,
  TypedArray,
  KernelDescription,
  KernelInputDesc,
  KernelInstruction,
  KOpCode,
} from '@tsge/metadef';

import type { KernelDescription, DataType, Dim, Graph } from '@tsge/metadef';

/** Partitions of an .om file (GE's ModelPartitionType, reduced to what tsge stores). */
export type PartitionType = 'MODEL_DEF' | 'WEIGHTS' | 'TASK_INFO' | 'KERNELS' | 'IO_INFO' | 'FLOW_MODEL' | 'FLOW_SUBMODEL';

export interface OmHeader {
  formatVersion: number;
  headerSize: number;
  /** CRC-32 (IEEE) of the body: everything after the header. */
  checksum: number;
  bodyLength: number;
  modelName: string;
  /** 'wasm-simd' (default) or 'js'. */
  target: string;
  flags: { dynamic: boolean; gears: boolean };
  partitionCount: number;
  /** GE's model type (the reader always sets it; absent means standard): 'standard' (0), or 'flow' (3: FLOW_MODEL + FLOW_SUBMODEL partitions, read by readFlowOm). */
  modelType?: 'standard' | 'flow';
}

/** Where a tensor lives in device memory: byte offset within its region. */
export interface TensorRef {
  /** 'dynamic': allocated at run time; 'none': an omitted optional input. */
  region: 'arena' | 'weights' | 'dynamic' | 'none';
  offset: number;
  bytes: number;
  dtype: DataType;
  /** Static plans: numbers only. */
  shape: number[] | Dim[];
}

export type Task =
  | {
      kind: 'kernel';
      node: string;
      opType: string;
      domain: string;
      /** Implementation name in the kernel registry, or `wasm:<module>:<export>`. */
      kernel: string;
      inputs: TensorRef[];
      outputs: TensorRef[];
      workspace?: TensorRef;
      /**
       * The node's attributes when all are plain values (numbers, strings, booleans, dtypes and
       * lists of them), with its opset: the task then runs without decoding MODEL_DEF.
       */
      attrs?: Record<string, PlainAttr>;
      opset?: number;
    }
  | { kind: 'record'; event: number }
  | { kind: 'wait'; event: number };

/** An attribute value that JSON carries exactly (floats are float32 values, all finite). */
export type PlainAttr =
  | { kind: 'int' | 'float'; value: number }
  | { kind: 'string' | 'dtype'; value: string }
  | { kind: 'bool'; value: boolean }
  | { kind: 'ints' | 'floats'; value: number[] }
  | { kind: 'strings' | 'dtypes'; value: string[] }
  | { kind: 'bools'; value: boolean[] };

export interface StreamInfo {
  id: number;
  tasks: Task[];
}

export interface MemoryReport {
  arenaBytes: number;
  noReuseBytes: number;
  lowerBoundBytes: number;
  weightsBytes: number;
}

/** One per gear; a static model has exactly one. */
export interface ExecutionPlan {
  /** Input name → concrete shape for this gear (null: the static plan). */
  gear: Record<string, number[]> | null;
  arenaBytes: number;
  streams: StreamInfo[];
  eventCount: number;
  memory: MemoryReport;
  /** In model input order. */
  inputs: TensorRef[];
  /** In model output order. */
  outputs: TensorRef[];
}

export interface TaskInfo {
  version: 1;
  plans: ExecutionPlan[];
  dynamic: boolean;
  /** Present when WEIGHTS stores some constants narrower than device memory holds them. */
  weightStorage?: WeightStorage;
}

/**
 * How WEIGHTS becomes the weights of device memory when some constants are stored as float16 or
 * bfloat16 but computed on as float32 (`--precision_mode`): the reader widens them at load, and
 * every weights TensorRef and `_weight_offset` addresses the widened layout.
 */
export interface WeightStorage {
  /** Bytes of the weights as device memory holds them. */
  deviceBytes: number;
  /**
   * `[stored, device, count, kind]`, sorted by device offset and disjoint, covering every constant:
   * kind 0 copies `count` bytes; 1 widens `count` float16 values, 2 `count` bfloat16 values, to float32.
   */
  spans: [number, number, number, number][];
}

export interface IoTensorInfo {
  name: string;
  dtype: DataType;
  shape: Dim[];
  kind?: 'tensor' | 'sequence' | 'optional';
}

export interface IoInfo {
  version: 1;
  inputs: IoTensorInfo[];
  outputs: IoTensorInfo[];
}

export interface KernelModule {
  name: string;
  bytes: Uint8Array;
}

export interface OmModel {
  header: OmHeader;
  /** MODEL_DEF: the compiled graph (.air bytes through metadef serializeAir/parseAir). */
  graph: Graph;
  /** WEIGHTS: 64-byte aligned constants; Const nodes carry `_weight_offset`/`_weight_bytes`. */
  weights: Uint8Array;
  taskInfo: TaskInfo;
  /** KERNELS: WebAssembly modules (compiled only with the user's opt-in). */
  kernels: KernelModule[];
  /**
   * KERNELS: generated kernels as validated descriptions (numbers and op codes, see metadef's
   * kernel IR); a `tsge::FusedElementwise` node's attribute `kernel` is an index into this list.
   */
  kernelDescriptions?: readonly KernelDescription[];
  ioInfo: IoInfo;
}

export type OmWriteInput = Omit<OmModel, 'header'> & { modelName: string; target: string; flags: OmHeader['flags'] };

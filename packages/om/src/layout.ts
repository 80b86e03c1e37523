import type { PartitionType } from './types.js';

/** 8 ASCII bytes at offset 0. */
export const OM_MAGIC = 'TSGE.OM\0';
export const OM_FORMAT_VERSION = 1;
export const OM_HEADER_SIZE = 256;
/** Partitions start on 64-byte boundaries of the file so weights can be viewed without a copy. */
export const OM_ALIGNMENT = 64;
export const PARTITION_ENTRY_SIZE = 24;
export const MAX_PARTITIONS = 16;
export const MODEL_NAME_BYTES = 64;
export const TARGET_BYTES = 32;

/** Header field offsets (little-endian). */
export const HEADER = {
  magic: 0,
  headerSize: 8,
  formatVersion: 12,
  checksum: 16,
  flags: 20,
  bodyLength: 24, // u64
  partitionCount: 32,
  modelName: 40,
  target: 40 + MODEL_NAME_BYTES,
  /** u32: GE's model type (0: a standard model, 3: a flow model); zero in files from before it existed. */
  modelType: 40 + MODEL_NAME_BYTES + TARGET_BYTES,
} as const;

/** GE's model types that tsge writes. */
export const MODEL_TYPE_CODES = { standard: 0, flow: 3 } as const;

export const FLAG_DYNAMIC = 1;
export const FLAG_GEARS = 2;

export const PARTITION_CODES: Readonly<Record<PartitionType, number>> = {
  MODEL_DEF: 0,
  WEIGHTS: 1,
  TASK_INFO: 2,
  KERNELS: 3,
  IO_INFO: 4,
  FLOW_MODEL: 5,
  FLOW_SUBMODEL: 6,
};
export const PARTITION_TYPES: readonly PartitionType[] = [
  'MODEL_DEF',
  'WEIGHTS',
  'TASK_INFO',
  'KERNELS',
  'IO_INFO',
  'FLOW_MODEL',
  'FLOW_SUBMODEL',
];

/** Limits the reader enforces before allocating anything. */
export const LIMITS = {
  kernelModules: 4096,
  kernelNameBytes: 1024,
  jsonBytes: 256 * 1024 * 1024,
} as const;

export function alignUp(value: number, alignment = OM_ALIGNMENT): number {
  return Math.ceil(value / alignment) * alignment;
}

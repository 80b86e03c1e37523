import { PLACEHOLDER_FOR_GREATER_OP_CODES, builtinName } from './builtin-ops.js';
import { FlatbufferError, Table } from './table.js';

/**
 * Typed accessors for the parts of the TFLite schema (v3, file identifier "TFL3") that tsge
 * reads, written by hand on top of the flatbuffers runtime. Slots follow the schema's field order.
 */

/** TFLite `TensorType` codes. */
export const TENSOR_TYPES = [
  'float32',
  'float16',
  'int32',
  'uint8',
  'int64',
  'string',
  'bool',
  'int16',
  'complex64',
  'int8',
  'float64',
  'complex128',
  'uint64',
  'resource',
  'variant',
  'uint32',
  'uint16',
  'int4',
] as const;
export type TfliteType = (typeof TENSOR_TYPES)[number];

export interface TfliteQuantization {
  readonly scale: readonly number[];
  readonly zeroPoint: readonly number[];
  readonly quantizedDimension: number;
}

export interface TfliteTensor {
  readonly index: number;
  readonly name: string;
  readonly shape: readonly number[];
  /** `shape_signature`: -1 marks a dynamic dimension. */
  readonly shapeSignature: readonly number[] | undefined;
  readonly type: TfliteType;
  readonly buffer: number;
  readonly quantization: TfliteQuantization | undefined;
  readonly isVariable: boolean;
  readonly sparse: boolean;
}

export interface TfliteOperator {
  readonly index: number;
  readonly opcode: TfliteOpcode;
  /** Tensor indices; -1 marks an omitted optional input. */
  readonly inputs: readonly number[];
  readonly outputs: readonly number[];
  readonly intermediates: readonly number[];
  /** The builtin options table (its type follows from the op), read by slot. */
  readonly options: OptionsTable | undefined;
  readonly optionsType: number;
}

/** Slot-addressed reads of an options table (fields absent in the file give the fallback). */
export type OptionsTable = Pick<Table, 'int32' | 'uint8' | 'int8' | 'bool' | 'float32' | 'int32s'>;

export interface TfliteOpcode {
  readonly builtin: number;
  readonly name: string;
  readonly customCode: string | undefined;
  readonly version: number;
}

export interface TfliteSubgraph {
  readonly name: string;
  readonly tensors: readonly TfliteTensor[];
  readonly inputs: readonly number[];
  readonly outputs: readonly number[];
  readonly operators: readonly TfliteOperator[];
}

export interface TfliteModel {
  readonly version: number;
  readonly description: string | undefined;
  readonly subgraphs: readonly TfliteSubgraph[];
  /** Buffer data by index (views into the file; index 0 is the empty sentinel). */
  readonly buffers: readonly (Uint8Array | undefined)[];
}

/** Limits that keep a hostile file from making the reader allocate without bound. */
export const LIMITS = { tensors: 1_000_000, operators: 1_000_000, rank: 16, subgraphs: 10_000 } as const;

export function hasTfliteIdentifier(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && bytes[4] === 0x54 && bytes[5] === 0x46 && bytes[6] === 0x4c && bytes[7] === 0x33;
}

/** Decodes a .tflite file. Throws FlatbufferError on a malformed or truncated file. */
export function readTfliteModel(bytes: Uint8Array): TfliteModel {
  if (!hasTfliteIdentifier(bytes)) throw new FlatbufferError('the file identifier is not "TFL3"');
  const model = Table.root(bytes);
  const version = model.uint32(0);
  const opcodes = model.tables(1).map(readOpcode);
  const buffers = model.tables(4).map((b) => readBuffer(b, bytes));
  const subgraphTables = model.tables(2);
  if (subgraphTables.length > LIMITS.subgraphs) throw new FlatbufferError(`${subgraphTables.length} subgraphs exceed the limit`);
  const subgraphs = subgraphTables.map((s) => readSubgraph(s, opcodes));
  return { version, description: model.string(3), subgraphs, buffers };
}

function readOpcode(t: Table): TfliteOpcode {
  const deprecated = t.int8(0);
  const extended = t.int32(3);
  // the one-byte field holds codes below 127; larger codes live only in builtin_code
  const builtin = Math.max(deprecated, extended);
  const customCode = t.string(1);
  return {
    builtin,
    name: builtin === 32 && customCode ? `CUSTOM(${customCode})` : builtinName(builtin),
    customCode,
    version: t.int32(2, 1),
  };
}

function readBuffer(t: Table, file: Uint8Array): Uint8Array | undefined {
  const data = t.vectorBytes(0, 1);
  if (data?.length) return data;
  // models over 2 GB keep buffers after the flatbuffer, addressed by offset and size
  const offset = t.has(1) ? t.int64(1) : 0;
  const size = t.has(2) ? t.int64(2) : 0;
  if (offset > 1) {
    if (offset + size > file.length)
      throw new FlatbufferError(`buffer at offset ${offset} with ${size} bytes runs past the end of the file`);
    return file.subarray(offset, offset + size);
  }
  return undefined;
}

function readSubgraph(t: Table, opcodes: readonly TfliteOpcode[]): TfliteSubgraph {
  const tensorTables = t.tables(0);
  if (tensorTables.length > LIMITS.tensors) throw new FlatbufferError(`${tensorTables.length} tensors exceed the limit`);
  const tensors = tensorTables.map((x, i) => readTensor(x, i));
  const operatorTables = t.tables(3);
  if (operatorTables.length > LIMITS.operators) throw new FlatbufferError(`${operatorTables.length} operators exceed the limit`);
  const operators = operatorTables.map((x, i) => readOperator(x, i, opcodes));
  return { name: t.string(4) ?? '', tensors, inputs: t.int32s(1) ?? [], outputs: t.int32s(2) ?? [], operators };
}

function readTensor(t: Table, index: number): TfliteTensor {
  const shape = t.int32s(0) ?? [];
  if (shape.length > LIMITS.rank) throw new FlatbufferError(`tensor ${index} has rank ${shape.length}`);
  const typeCode = t.int8(1);
  const type = TENSOR_TYPES[typeCode];
  if (!type) throw new FlatbufferError(`tensor ${index} has unknown type code ${typeCode}`);
  const q = t.table(4);
  let quantization: TfliteQuantization | undefined;
  if (q) {
    const scale = q.float32s(2) ?? [];
    const zeroPoint = q.int64s(3) ?? [];
    if (scale.length) quantization = { scale, zeroPoint, quantizedDimension: q.int32(6) };
  }
  const signature = t.int32s(7);
  return {
    index,
    name: t.string(3) ?? `tensor_${index}`,
    shape,
    shapeSignature: signature && signature.length === shape.length ? signature : undefined,
    type,
    buffer: t.uint32(2),
    quantization,
    isVariable: t.bool(5),
    sparse: t.has(6),
  };
}

function readOperator(t: Table, index: number, opcodes: readonly TfliteOpcode[]): TfliteOperator {
  const opcodeIndex = t.uint32(0);
  const opcode = opcodes[opcodeIndex];
  if (!opcode) throw new FlatbufferError(`operator ${index} names opcode ${opcodeIndex}; the model has ${opcodes.length}`);
  return {
    index,
    opcode,
    inputs: t.int32s(1) ?? [],
    outputs: t.int32s(2) ?? [],
    intermediates: t.int32s(8) ?? [],
    optionsType: t.uint8(3),
    options: t.table(4),
  };
}

export { PLACEHOLDER_FOR_GREATER_OP_CODES };

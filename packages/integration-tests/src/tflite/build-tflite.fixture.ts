// Writes small single-operator TFLite models with the flatbuffers Builder, so operators the coral
// corpus lacks can be run by LiteRT and by tsge on the same file. Slots follow the TFLite schema v3.
import { Builder } from 'flatbuffers';

export type TensorType = 'float32' | 'int32' | 'uint8' | 'int64' | 'int8';
const TYPE_CODES: Record<TensorType, number> = { float32: 0, int32: 2, uint8: 3, int64: 4, int8: 9 };

export interface TensorSpec {
  readonly shape: readonly number[];
  readonly type?: TensorType;
  /** Constant data (a typed array of the tensor's type). */
  readonly data?: Float32Array | Int32Array | Uint8Array | Int8Array | BigInt64Array;
  readonly quantization?: { readonly scale: readonly number[]; readonly zeroPoint: readonly number[]; readonly dimension?: number };
}

/** One options field: slot, kind, value. */
export type OptionField = readonly [
  slot: number,
  kind: 'int8' | 'int32' | 'float32' | 'bool' | 'int32s',
  value: number | boolean | readonly number[],
];

export interface OpSpec {
  /** BuiltinOperator code. */
  readonly code: number;
  readonly version?: number;
  /** Tensor names (keys of `tensors`); '' for an omitted optional input. */
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  /** BuiltinOptions union index and fields. */
  readonly options?: { readonly type: number; readonly fields: readonly OptionField[] };
}

export interface ModelSpec {
  readonly tensors: Readonly<Record<string, TensorSpec>>;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly ops: readonly OpSpec[];
}

export function buildTflite(spec: ModelSpec): Uint8Array {
  const b = new Builder(1024);
  const names = Object.keys(spec.tensors);
  const index = (name: string) => {
    if (name === '') return -1;
    const i = names.indexOf(name);
    if (i < 0) throw new Error(`unknown tensor ${name}`);
    return i;
  };
  const int32Vector = (values: readonly number[]) => {
    b.startVector(4, values.length, 4);
    for (let i = values.length - 1; i >= 0; i--) b.addInt32(values[i] as number);
    return b.endVector();
  };
  // buffers: 0 is the empty sentinel, then one per constant tensor
  const bufferOffsets: number[] = [];
  const bufferOf = new Map<string, number>();
  const sentinel = (() => {
    b.startObject(3);
    return b.endObject();
  })();
  bufferOffsets.push(sentinel);
  for (const name of names) {
    const data = spec.tensors[name]?.data;
    if (!data) continue;
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    b.startVector(1, bytes.length, 16);
    for (let i = bytes.length - 1; i >= 0; i--) b.addInt8(bytes[i] as number);
    const vector = b.endVector();
    b.startObject(3);
    b.addFieldOffset(0, vector, 0);
    bufferOf.set(name, bufferOffsets.length);
    bufferOffsets.push(b.endObject());
  }
  const tensors = names.map((name) => {
    const t = spec.tensors[name] as TensorSpec;
    const shape = int32Vector(t.shape);
    const nameOffset = b.createString(name);
    let quantization = 0;
    if (t.quantization) {
      b.startVector(4, t.quantization.scale.length, 4);
      for (let i = t.quantization.scale.length - 1; i >= 0; i--) b.addFloat32(t.quantization.scale[i] as number);
      const scale = b.endVector();
      b.startVector(8, t.quantization.zeroPoint.length, 8);
      for (let i = t.quantization.zeroPoint.length - 1; i >= 0; i--) b.addInt64(BigInt(t.quantization.zeroPoint[i] as number));
      const zeroPoint = b.endVector();
      b.startObject(7);
      b.addFieldOffset(2, scale, 0);
      b.addFieldOffset(3, zeroPoint, 0);
      b.addFieldInt32(6, t.quantization.dimension ?? 0, 0);
      quantization = b.endObject();
    }
    b.startObject(8);
    b.addFieldOffset(0, shape, 0);
    b.addFieldInt8(1, TYPE_CODES[t.type ?? 'float32'], 0);
    b.addFieldInt32(2, bufferOf.get(name) ?? 0, 0);
    b.addFieldOffset(3, nameOffset, 0);
    if (quantization) b.addFieldOffset(4, quantization, 0);
    return b.endObject();
  });
  const codes = [...new Set(spec.ops.map((o) => `${o.code}:${o.version ?? 1}`))];
  const opcodes = codes.map((key) => {
    const [code, version] = key.split(':').map(Number) as [number, number];
    b.startObject(4);
    b.addFieldInt8(0, Math.min(code, 127), 0);
    b.addFieldInt32(2, version, 1);
    b.addFieldInt32(3, code, 0);
    return b.endObject();
  });
  const operators = spec.ops.map((op) => {
    const inputs = int32Vector(op.inputs.map(index));
    const outputs = int32Vector(op.outputs.map(index));
    let options = 0;
    if (op.options) {
      const vectors = new Map<number, number>();
      for (const [slot, kind, value] of op.options.fields) if (kind === 'int32s') vectors.set(slot, int32Vector(value as number[]));
      // every listed field is written, also when it equals the schema default
      b.forceDefaults(true);
      b.startObject(16);
      for (const [slot, kind, value] of op.options.fields) {
        if (kind === 'int8') b.addFieldInt8(slot, value as number, 0);
        else if (kind === 'bool') b.addFieldInt8(slot, value ? 1 : 0, 0);
        else if (kind === 'int32') b.addFieldInt32(slot, value as number, 0);
        else if (kind === 'float32') b.addFieldFloat32(slot, value as number, 0);
        else b.addFieldOffset(slot, vectors.get(slot) as number, 0);
      }
      options = b.endObject();
      b.forceDefaults(false);
    }
    b.startObject(13);
    b.addFieldInt32(0, codes.indexOf(`${op.code}:${op.version ?? 1}`), -1);
    b.addFieldOffset(1, inputs, 0);
    b.addFieldOffset(2, outputs, 0);
    if (op.options) {
      b.addFieldInt8(3, op.options.type, 0);
      b.addFieldOffset(4, options, 0);
    }
    return b.endObject();
  });
  const tableVector = (offsets: readonly number[]) => {
    b.startVector(4, offsets.length, 4);
    for (let i = offsets.length - 1; i >= 0; i--) b.addOffset(offsets[i] as number);
    return b.endVector();
  };
  const tensorVector = tableVector(tensors);
  const subgraphInputs = int32Vector(spec.inputs.map(index));
  const subgraphOutputs = int32Vector(spec.outputs.map(index));
  const operatorVector = tableVector(operators);
  const subgraphName = b.createString('main');
  b.startObject(5);
  b.addFieldOffset(0, tensorVector, 0);
  b.addFieldOffset(1, subgraphInputs, 0);
  b.addFieldOffset(2, subgraphOutputs, 0);
  b.addFieldOffset(3, operatorVector, 0);
  b.addFieldOffset(4, subgraphName, 0);
  const subgraph = b.endObject();
  const subgraphs = tableVector([subgraph]);
  const opcodeVector = tableVector(opcodes);
  const buffers = tableVector(bufferOffsets);
  const description = b.createString('tsge test model');
  b.startObject(8);
  b.addFieldInt32(0, 3, 0);
  b.addFieldOffset(1, opcodeVector, 0);
  b.addFieldOffset(2, subgraphs, 0);
  b.addFieldOffset(3, description, 0);
  b.addFieldOffset(4, buffers, 0);
  const model = b.endObject();
  b.finish(model, 'TFL3');
  return b.asUint8Array().slice();
}

import {
  type AttrValue,
  type DataType,
  GraphBuilder,
  type Shape,
  type TypedArray,
  type Value,
  ONNX_DTYPE,
  attr,
  createTensorDesc,
  storageConstructor,
} from '@tsge/metadef';
import type { TfliteModel, TfliteOperator, TfliteSubgraph, TfliteTensor, TfliteType } from '../schema/model.js';
import { ImportProblem, badOperator } from './problem.js';

/**
 * Layouts a 4-D value can be held in. TFLite tensors are NHWC ('native'); layout-sensitive ops
 * (convolution, pooling, resize, ...) want NCHW, the canonical op set's layout. Each tensor keeps
 * at most one value per layout, so a tensor is transposed at most once each way however many
 * consumers it has, and elementwise ops between two NCHW ops stay in NCHW.
 */
export type Layout = 'native' | 'nchw';

/** NHWC → NCHW and back. */
export const TO_NCHW = [0, 3, 1, 2] as const;
export const TO_NHWC = [0, 2, 3, 1] as const;

const DTYPES: Partial<Record<TfliteType, DataType>> = {
  float32: 'float32',
  float16: 'float16',
  float64: 'float64',
  int32: 'int32',
  uint8: 'uint8',
  int64: 'int64',
  string: 'string',
  bool: 'bool',
  int16: 'int16',
  int8: 'int8',
  uint64: 'uint64',
  uint32: 'uint32',
  uint16: 'uint16',
};

/** Quantization of one tensor in the form the QLinear/QDQ ops take. */
export interface QuantParams {
  readonly scale: Float32Array;
  readonly zeroPoint: readonly number[];
  /** The quantized axis (per-channel), or undefined for per-tensor. */
  readonly axis: number | undefined;
}

export function permuteShape(shape: readonly number[], perm: readonly number[]): number[] {
  return perm.map((p) => shape[p] as number);
}

/** Imports one subgraph: the TFLite tensors become values, each operator a few canonical nodes. */
export class ImportContext {
  readonly b: GraphBuilder;
  readonly model: TfliteModel;
  readonly subgraph: TfliteSubgraph;
  private readonly values = new Map<number, { native?: Value; nchw?: Value }>();
  private readonly floats = new Map<string, Value>();
  private counter = 0;
  /** The operator being imported (names its nodes). */
  op: TfliteOperator | undefined;

  /** Import quantized tensors as float32 (constants dequantized here, activations float). */
  readonly dequantize: boolean;

  constructor(model: TfliteModel, subgraph: TfliteSubgraph, name: string, options: { dequantize?: boolean } = {}) {
    this.model = model;
    this.subgraph = subgraph;
    this.b = new GraphBuilder(name);
    this.dequantize = options.dequantize ?? false;
  }

  /** Quantization as stored in the file (also when the import dequantizes). */
  private storedQuant(t: TfliteTensor): TfliteTensor['quantization'] {
    const d = DTYPES[t.type];
    return d === 'float32' || d === 'float16' || d === 'float64' || d === 'bool' ? undefined : t.quantization;
  }

  tensor(index: number): TfliteTensor {
    const t = this.subgraph.tensors[index];
    if (!t) badOperator(`tensor index ${index} is out of range (${this.subgraph.tensors.length} tensors)`);
    return t;
  }

  dtypeOf(t: TfliteTensor): DataType {
    if (this.dequantize && this.storedQuant(t)) return 'float32';
    const d = DTYPES[t.type];
    if (!d) throw new ImportProblem('TSGE-E3404', { tensor: t.name, reason: `type ${t.type} has no tsge equivalent` });
    return d;
  }

  /** Operator input tensor `i`, or undefined when omitted (-1 or past the end). */
  inputTensor(i: number): TfliteTensor | undefined {
    const index = this.op?.inputs[i];
    return index === undefined || index < 0 ? undefined : this.tensor(index);
  }

  requireInput(i: number): TfliteTensor {
    const t = this.inputTensor(i);
    if (!t) badOperator(`${this.opName()} has no input ${i}`);
    return t;
  }

  outputTensor(i = 0): TfliteTensor {
    const index = this.op?.outputs[i];
    if (index === undefined || index < 0) badOperator(`${this.opName()} has no output ${i}`);
    return this.tensor(index);
  }

  opName(): string {
    return this.op ? `${this.op.opcode.name} #${this.op.index}` : 'graph';
  }

  /** A unique node name derived from the operator's first output tensor. */
  name(suffix: string): string {
    const base = this.op ? (this.subgraph.tensors[this.op.outputs[0] ?? -1]?.name ?? `op${this.op.index}`) : 'graph';
    return `${base}/${suffix}_${this.counter++}`;
  }

  /** Constant data of a tensor (a copy, aligned for its typed array), or undefined. */
  constData(t: TfliteTensor): TypedArray | undefined {
    const bytes = t.buffer ? this.model.buffers[t.buffer] : undefined;
    if (!bytes) return undefined;
    if (this.dequantize && this.storedQuant(t)) return this.dequantizedData(t, bytes);
    const dtype = this.dtypeOf(t);
    if (dtype === 'string') throw new ImportProblem('TSGE-E3404', { tensor: t.name, reason: 'constant string tensors are not supported' });
    const Ctor = storageConstructor(dtype);
    if (!Ctor) throw new ImportProblem('TSGE-E3404', { tensor: t.name, reason: `no storage for ${dtype}` });
    const count = t.shape.reduce((a, b) => a * b, 1);
    if (count * Ctor.BYTES_PER_ELEMENT !== bytes.length) {
      throw new ImportProblem('TSGE-E3404', {
        tensor: t.name,
        reason: `its buffer has ${bytes.length} bytes, shape [${t.shape.join(',')}] of ${t.type} needs ${count * Ctor.BYTES_PER_ELEMENT}`,
      });
    }
    return new Ctor(bytes.slice().buffer) as TypedArray;
  }

  /** A quantized constant as float32 values (only when the import dequantizes everything). */
  private dequantizedData(t: TfliteTensor, bytes: Uint8Array): Float32Array {
    const q = this.storedQuant(t);
    const Ctor = storageConstructor(DTYPES[t.type] ?? 'uint8');
    if (!q || !Ctor) throw new ImportProblem('TSGE-E3404', { tensor: t.name, reason: 'cannot dequantize' });
    const count = t.shape.reduce((a, b) => a * b, 1);
    if (count * Ctor.BYTES_PER_ELEMENT !== bytes.length)
      throw new ImportProblem('TSGE-E3404', { tensor: t.name, reason: `its buffer has ${bytes.length} bytes` });
    const raw = new Ctor(bytes.slice().buffer) as unknown as ArrayLike<number>;
    const axis = q.scale.length > 1 ? q.quantizedDimension : -1;
    const inner = axis < 0 ? 1 : t.shape.slice(axis + 1).reduce((a, b) => a * b, 1);
    const channels = axis < 0 ? 1 : (t.shape[axis] as number);
    return Float32Array.from({ length: count }, (_, i) => {
      const c = axis < 0 ? 0 : Math.floor(i / inner) % channels;
      return ((raw[i] as number) - (q.zeroPoint[c] ?? q.zeroPoint[0] ?? 0)) * (q.scale[c] as number);
    });
  }

  /** Constant integer values of a tensor (shapes, axes, paddings). */
  constInts(t: TfliteTensor, what: string): number[] {
    const data = this.constData(t);
    if (!data) throw new ImportProblem('TSGE-E3405', { op: this.opName(), what: `${what} (tensor ${t.name})` });
    return Array.from(data as ArrayLike<number | bigint>, (v) => Number(v));
  }

  isConst(t: TfliteTensor): boolean {
    return t.buffer !== 0 && this.model.buffers[t.buffer] !== undefined;
  }

  /** Static shape of a tensor, refusing dynamic dimensions where an op needs them fixed. */
  staticShape(t: TfliteTensor): number[] {
    if (t.shapeSignature?.some((d) => d < 0) || t.shape.some((d) => d < 0)) {
      throw new ImportProblem('TSGE-E3404', {
        tensor: t.name,
        reason: `${this.opName()} needs a static shape, it has [${(t.shapeSignature ?? t.shape).join(',')}]`,
      });
    }
    return [...t.shape];
  }

  /** The graph shape of a tensor: -1 where the signature says dynamic. */
  shapeOf(t: TfliteTensor): number[] {
    return t.shapeSignature ? t.shapeSignature.map((d, i) => (d < 0 ? -1 : (t.shape[i] as number))) : [...t.shape];
  }

  quant(t: TfliteTensor): QuantParams | undefined {
    const q = t.quantization;
    if (!q || this.dequantize) return undefined;
    const dtype = this.dtypeOf(t);
    if (dtype === 'float32' || dtype === 'float16' || dtype === 'float64' || dtype === 'bool') return undefined;
    const perChannel = q.scale.length > 1;
    if (
      perChannel &&
      (q.quantizedDimension < 0 || q.quantizedDimension >= t.shape.length || t.shape[q.quantizedDimension] !== q.scale.length)
    ) {
      throw new ImportProblem('TSGE-E3404', {
        tensor: t.name,
        reason: `${q.scale.length} scales do not match dimension ${q.quantizedDimension} of [${t.shape.join(',')}]`,
      });
    }
    if (q.scale.some((s) => !(s > 0) || !Number.isFinite(s)))
      throw new ImportProblem('TSGE-E3404', { tensor: t.name, reason: 'a quantization scale is not a positive number' });
    const zeroPoint = q.zeroPoint.length === q.scale.length ? q.zeroPoint : q.scale.map(() => q.zeroPoint[0] ?? 0);
    return { scale: Float32Array.from(q.scale), zeroPoint, axis: perChannel ? q.quantizedDimension : undefined };
  }

  /** Whether a tensor holds quantized integers (uint8/int8/int16 with scale and zero point). */
  isQuantized(t: TfliteTensor): boolean {
    return this.quant(t) !== undefined && ['uint8', 'int8', 'int16'].includes(this.dtypeOf(t));
  }

  sameQuant(a: TfliteTensor, b: TfliteTensor): boolean {
    const qa = this.quant(a);
    const qb = this.quant(b);
    if (!qa || !qb) return !qa && !qb && this.dtypeOf(a) === this.dtypeOf(b);
    return (
      a.type === b.type &&
      qa.axis === qb.axis &&
      qa.scale.length === qb.scale.length &&
      qa.scale.every((s, i) => s === qb.scale[i]) &&
      qa.zeroPoint.every((z, i) => z === qb.zeroPoint[i])
    );
  }

  // ---- values ----

  /** Adds a node with one output whose desc is given. */
  node(type: string, inputs: readonly (Value | undefined)[], dtype: DataType, shape: Shape, attrs: Record<string, AttrValue> = {}): Value {
    return this.b.op(type, inputs, { name: this.name(type), attrs, outputDescs: [createTensorDesc(dtype, shape)] });
  }

  nodeN(
    type: string,
    inputs: readonly (Value | undefined)[],
    outputs: readonly { dtype: DataType; shape: Shape }[],
    attrs: Record<string, AttrValue> = {},
  ): Value[] {
    return this.b.opN(type, inputs, outputs.length, {
      name: this.name(type),
      attrs,
      outputDescs: outputs.map((o) => createTensorDesc(o.dtype, o.shape)),
    });
  }

  constant(suffix: string, data: TypedArray, dims: readonly number[], dtype?: DataType): Value {
    return this.b.constant(this.name(suffix), data, dims, dtype);
  }

  int64s(suffix: string, values: readonly number[]): Value {
    return this.constant(
      suffix,
      BigInt64Array.from(values, (v) => BigInt(v)),
      [values.length],
      'int64',
    );
  }

  /** Sets the value of a tensor in a layout. */
  set(index: number, value: Value, layout: Layout = 'native'): void {
    const entry = this.values.get(index) ?? {};
    entry[layout] = value;
    this.values.set(index, entry);
  }

  /** Whether a tensor already has a value in a layout (no transpose needed). */
  hasLayout(t: TfliteTensor, layout: Layout): boolean {
    return this.values.get(t.index)?.[layout] !== undefined;
  }

  /** The raw (stored-type) value of a tensor in a layout; constants become Const nodes. */
  raw(t: TfliteTensor, layout: Layout = 'native'): Value {
    const entry = this.values.get(t.index);
    const have = entry?.[layout];
    if (have) return have;
    if (layout === 'nchw') {
      if (t.shape.length !== 4) badOperator(`${this.opName()}: tensor ${t.name} has rank ${t.shape.length}, expected 4`);
      const native = this.raw(t, 'native');
      const v = this.node('Transpose', [native], this.dtypeOf(t), permuteShape(this.shapeOf(t), TO_NCHW), { perm: attr.ints(TO_NCHW) });
      this.set(t.index, v, 'nchw');
      return v;
    }
    if (entry?.nchw) {
      const v = this.node('Transpose', [entry.nchw], this.dtypeOf(t), this.shapeOf(t), { perm: attr.ints(TO_NHWC) });
      this.set(t.index, v, 'native');
      return v;
    }
    const data = this.constData(t);
    if (!data) badOperator(`${this.opName()}: tensor ${t.name} is read before any operator writes it`);
    const v = this.b.constant(t.name, data, t.shape, this.dtypeOf(t));
    this.set(t.index, v, 'native');
    return v;
  }

  /** Scale and zero-point constants of a quantized tensor (zero point in the tensor's type). */
  quantConsts(t: TfliteTensor, q: QuantParams, zeroPointType?: DataType): [Value, Value] {
    const dtype = zeroPointType ?? this.dtypeOf(t);
    const Ctor = storageConstructor(dtype) as unknown as { from(values: readonly number[]): TypedArray };
    const dims = q.axis === undefined ? [] : [q.scale.length];
    return [this.constant('scale', q.scale, dims, 'float32'), this.constant('zero_point', Ctor.from(q.zeroPoint), dims, dtype)];
  }

  /** The float value of a tensor in a layout: quantized tensors go through DequantizeLinear. */
  float(t: TfliteTensor, layout: Layout = 'native'): Value {
    const dtype = this.dtypeOf(t);
    // int32 biases carry quantization too (scale s_x·s_w): they dequantize like activations
    const q = this.quant(t);
    if (!q && dtype === 'float32') return this.raw(t, layout);
    const key = `${t.index}:${layout}`;
    const have = this.floats.get(key);
    if (have) return have;
    const shape = layout === 'nchw' ? permuteShape(this.shapeOf(t), TO_NCHW) : this.shapeOf(t);
    let v: Value;
    if (q) {
      const [scale, zp] = this.quantConsts(t, q);
      const axis = q.axis === undefined ? 0 : layout === 'nchw' ? TO_NCHW.indexOf(q.axis as 0) : q.axis;
      v = this.node('DequantizeLinear', [this.raw(t, layout), scale, zp], 'float32', shape, { axis: attr.int(axis) });
    } else {
      v = this.node('Cast', [this.raw(t, layout)], 'float32', shape, { to: attr.int(1) });
    }
    this.floats.set(key, v);
    return v;
  }

  /** Sets an output tensor from a float value: quantized outputs get a QuantizeLinear. */
  setFloat(t: TfliteTensor, value: Value, layout: Layout = 'native'): void {
    const dtype = this.dtypeOf(t);
    const shape = layout === 'nchw' ? permuteShape(this.shapeOf(t), TO_NCHW) : this.shapeOf(t);
    const q = this.isQuantized(t) ? this.quant(t) : undefined;
    if (q) {
      const [scale, zp] = this.quantConsts(t, q);
      const axis = q.axis === undefined ? 1 : layout === 'nchw' ? TO_NCHW.indexOf(q.axis as 0) : q.axis;
      // consumers read DequantizeLinear(QuantizeLinear(value)), never the unrounded value
      this.set(t.index, this.node('QuantizeLinear', [value, scale, zp], dtype, shape, { axis: attr.int(axis) }), layout);
    } else if (dtype === 'float32') {
      this.set(t.index, value, layout);
    } else {
      this.set(t.index, this.node('Cast', [value], dtype, shape, { to: attr.int(onnxTypeCode(dtype)) }), layout);
    }
  }

  /** Graph inputs: Data nodes named after the TFLite input tensors (NHWC as the model has them). */
  addInputs(): void {
    for (const index of this.subgraph.inputs) {
      const t = this.tensor(index);
      if (this.isConst(t)) continue;
      this.set(index, this.b.input(t.name, this.dtypeOf(t), this.shapeOf(t)), 'native');
    }
  }

  addOutputs(): void {
    for (const index of this.subgraph.outputs) {
      const t = this.tensor(index);
      this.b.output(this.raw(t, 'native'), t.name);
    }
  }
}

export function onnxTypeCode(dtype: DataType): number {
  return ONNX_DTYPE[dtype];
}

import { type AttrValue, type Diagnostic, GraphBuilder, TsgeError, type Value, createTensorDesc } from '@tsge/metadef';
import type { caffe } from '../generated/caffe.js';
import type { BlobValues } from '../net/blobs.js';
import { fillBlob } from '../net/fillers.js';
import type { Layer } from '../net/net-model.js';

/** A blob in the graph being built: the value that holds it now, and its static shape. */
export interface BlobRef {
  readonly value: Value;
  readonly shape: readonly number[];
}

/** Where weights come from: the caffemodel, Caffe's fillers (explicitly asked for), or nowhere. */
export type WeightSource =
  | { readonly kind: 'model' }
  | {
      readonly kind: 'fill';
      readonly random: () => number;
      /** Receives every filled blob by layer name (to write a caffemodel). */
      readonly record?: Map<string, BlobValues[]>;
      /** Replaces the filler's values for a blob when it returns some. */
      readonly values?: BlobValuesFn;
    };

/** Values for weight blob `index` of a layer, or undefined to use the layer's filler. */
export type BlobValuesFn = (blob: {
  readonly layer: string;
  readonly type: string;
  readonly index: number;
  readonly dims: readonly number[];
}) => Float32Array | undefined;

/** State shared by every layer converter of one network. */
export class NetContext {
  readonly builder: GraphBuilder;
  /** Layers that needed weights none were given for. */
  readonly missingWeights: string[] = [];

  constructor(
    name: string,
    readonly weights: WeightSource,
    readonly diagnostics: Diagnostic[],
    readonly file: string | undefined,
  ) {
    this.builder = new GraphBuilder(name);
  }
}

type Attrs = Readonly<Record<string, AttrValue>>;

/**
 * One weight blob holds at most this many values (512 MiB of float32): the largest real blobs
 * (VGG-16 fc6, 102.8M values) fit; a blob of 2^30 drawn from its filler ran out of memory.
 */
const MAX_BLOB_VALUES = 2 ** 27;

/** What a layer converter sees: its layer, its bottoms, and helpers that add nodes. */
export class LayerContext {
  private nodeCount = 0;

  constructor(
    readonly net: NetContext,
    readonly layer: Layer,
    readonly inputs: readonly BlobRef[],
  ) {}

  /** The i-th bottom; a missing one is a layer error. */
  input(i: number): BlobRef {
    const ref = this.inputs[i];
    if (!ref) this.fail(`needs at least ${i + 1} bottom${i === 0 ? '' : 's'}, has ${this.inputs.length}`);
    return ref as BlobRef;
  }

  /** Fails this layer with TSGE-E3205 naming it. */
  fail(reason: string): never {
    throw TsgeError.of('TSGE-E3205', { layer: this.layer.name, type: this.layer.type, reason }, this.location());
  }

  location(): { node: string; opType: string; file?: string } {
    return { node: this.layer.name, opType: this.layer.type, ...(this.net.file ? { file: this.net.file } : {}) };
  }

  private nodeName(): string {
    return this.nodeCount++ === 0 ? this.layer.name || this.layer.type : `${this.layer.name}/${this.nodeCount - 1}`;
  }

  /** Adds one canonical op whose output has `shape` (float32 unless `dtype` says otherwise; -1 for a dim known only at run time). */
  op(
    type: string,
    inputs: readonly (Value | undefined)[],
    shape: readonly number[],
    attrs: Attrs = {},
    dtype: 'float32' | 'int64' = 'float32',
    domain?: string,
  ): Value {
    return this.net.builder.op(type, inputs, {
      name: this.nodeName(),
      attrs,
      outputDescs: [createTensorDesc(dtype, shape)],
      ...(domain !== undefined ? { domain } : {}),
    });
  }

  /** Adds an op with several outputs, each with its shape. */
  opN(type: string, inputs: readonly (Value | undefined)[], shapes: readonly (readonly number[])[], attrs: Attrs = {}): Value[] {
    return this.net.builder.opN(type, inputs, shapes.length, {
      name: this.nodeName(),
      attrs,
      outputDescs: shapes.map((s) => createTensorDesc('float32', s)),
    });
  }

  /** A float32 constant. */
  constant(data: Float32Array, dims: readonly number[], suffix = 'const'): Value {
    return this.net.builder.constant(`${this.layer.name}/${suffix}`, data, dims, 'float32');
  }

  scalar(value: number, suffix = 'scalar'): Value {
    return this.constant(Float32Array.of(value), [], suffix);
  }

  /** An int64 constant (shapes, axes, split sizes). */
  ints(values: readonly number[], suffix = 'ints'): Value {
    return this.net.builder.constant(`${this.layer.name}/${suffix}`, BigInt64Array.from(values.map(BigInt)), [values.length], 'int64');
  }

  /** Number of weight blobs the model gave this layer (0 when weights are filled or missing). */
  get blobCount(): number {
    return this.layer.blobs?.length ?? 0;
  }

  /**
   * Weight blob `index` with `dims`. From the caffemodel its count must match (Caffe's older 4-D
   * shapes such as 1x1xNxK are accepted); when filling, the layer's filler draws it; otherwise the
   * layer is listed as missing weights and zeros stand in until the parse reports it.
   */
  weight(
    index: number,
    dims: readonly number[],
    filler: caffe.IFillerParameter | undefined,
    fallback: caffe.IFillerParameter = {},
  ): Float32Array {
    const count = dims.reduce((a, b) => a * b, 1);
    if (!(count <= MAX_BLOB_VALUES)) this.fail(`blob ${index} of shape [${dims.join(',')}] exceeds ${MAX_BLOB_VALUES} values`);
    const { weights } = this.net;
    if (this.layer.blobs) {
      const blob = this.layer.blobs[index];
      if (!blob) {
        throw TsgeError.of(
          'TSGE-E3206',
          { layer: this.layer.name, type: this.layer.type, expected: index + 1, reason: `the model gives ${this.layer.blobs.length}` },
          this.location(),
        );
      }
      const values = blob;
      if (values.data.length !== count) {
        throw TsgeError.of(
          'TSGE-E3207',
          { layer: this.layer.name, index, actual: values.data.length, shape: `[${dims.join(',')}]`, expected: count },
          this.location(),
        );
      }
      return values.data;
    }
    if (weights.kind === 'fill') {
      const given = weights.values?.({ layer: this.layer.name, type: this.layer.type, index, dims });
      if (given && given.length !== count) this.fail(`the values given for blob ${index} have ${given.length} elements, not ${count}`);
      const data = given ?? fillBlob(filler ?? fallback, dims, weights.random, fallback.type ?? 'constant');
      if (weights.record) {
        const list = weights.record.get(this.layer.name) ?? [];
        list[index] = { dims: [...dims], data: data.slice() };
        weights.record.set(this.layer.name, list);
      }
      return data;
    }
    if (!this.net.missingWeights.includes(this.layer.name)) this.net.missingWeights.push(this.layer.name);
    return new Float32Array(count);
  }
}

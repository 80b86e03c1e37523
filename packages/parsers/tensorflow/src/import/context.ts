import {
  type AttrValue,
  type DataType,
  type HostTensor,
  ONNX_DTYPE,
  TSGE_DOMAIN,
  type Value,
  attr,
  createTensor,
  toNumberArray,
} from '@tsge/metadef';
import { nodeProblem } from '../internal/problem.js';
import { TfAttrs } from './attrs.js';
import type { NodeFactory } from './builder.js';
import type { TfNode } from './tf-node.js';

/** Outputs one converted op may have (TF's num_split/num are unbounded ints in the file). */
const MAX_OP_OUTPUTS = 1 << 14;

/** What the importer knows of a converted value beyond the graph: its constant value and rank. */
export interface ValueInfo {
  readonly constant?: HostTensor;
  readonly rank?: number;
  readonly dtype?: DataType;
  /** The value is a sequence (a TensorArray's flow, a TensorList) of `dtype` elements. */
  readonly sequence?: boolean;
  /** A TensorArray handle: its array has a fixed size, which is the handle's value. */
  readonly fixedSizeArray?: boolean;
  /** A sequence that is known to hold nothing written yet (a new TensorArray or TensorList). */
  readonly emptySequence?: boolean;
  /** A sequence's element shape, when every dimension is known. */
  readonly elementShape?: readonly number[];
  /**
   * A TensorList's element shape as declared when the list was made (-1 for an unknown dimension,
   * 'unknown-rank'): what TensorListElementShape returns. TensorFlow's list ops keep it.
   */
  readonly listShape?: readonly number[] | 'unknown-rank';
  /**
   * A batch of TensorLists (a Pack of lists, a 1-D variant tensor in TensorFlow): the lists, known
   * when converting. Only the ops that take list batches read it (see LIST_BATCH_READERS).
   */
  readonly listBatch?: readonly Value[];
}

/** The TF ops that may take a batch of lists (any other op refuses one, naming its node). */
export const LIST_BATCH_READERS: ReadonlySet<string> = new Set(['Identity', 'Unpack', 'TensorListPushBackBatch', 'TensorListConcatLists']);

/**
 * Passed to each op converter: the TF node, its converted inputs, and helpers that add canonical
 * (ONNX) nodes to the graph being built. Converters return one value per TF output.
 */
export class ConvertContext {
  readonly attrs: TfAttrs;
  private counter = 0;
  /** Nodes this conversion added, so the importer can give the result the TF node's name. */
  readonly created = new Set<unknown>();
  constructor(
    readonly node: TfNode,
    readonly builder: NodeFactory,
    private readonly values: readonly Value[],
    private readonly infoOf: (value: Value) => ValueInfo | undefined,
    private readonly setInfo: (value: Value, info: ValueInfo) => void,
  ) {
    this.attrs = new TfAttrs(node);
  }

  get inputCount(): number {
    return this.values.length;
  }

  problem(reason: string): Error {
    return nodeProblem(this.node.name, this.node.op, reason);
  }

  input(i: number): Value {
    const v = this.values[i];
    if (!v) throw this.problem(`input ${i} is missing`);
    return v;
  }

  /** The constant value of input i, when it is known at parse time. */
  constantOf(i: number): HostTensor | undefined {
    return this.infoOf(this.input(i))?.constant;
  }
  /** Input i's constant value as numbers; a non-constant input is a problem naming `what`. */
  constNumbers(i: number, what: string): number[] {
    const c = this.constantOf(i);
    if (!c) throw this.problem(`${what} (input ${i}) must be a constant`);
    return toNumberArray(c);
  }
  rankOf(value: Value): number | undefined {
    const info = this.infoOf(value);
    if (info?.rank !== undefined) return info.rank;
    if (info?.constant) return info.constant.dims.length;
    const shape = value.desc?.shape;
    if (shape && !(shape.length === 1 && shape[0] === -2)) return shape.length;
    return undefined;
  }
  /** Everything the importer knows of a value. */
  info(value: Value): ValueInfo {
    return this.infoOf(value) ?? {};
  }
  dtypeOf(value: Value): DataType | undefined {
    return this.infoOf(value)?.dtype ?? this.infoOf(value)?.constant?.type;
  }
  note(value: Value, info: ValueInfo): Value {
    this.setInfo(value, info);
    return value;
  }

  private name(suffix: string): string {
    return `${this.node.name}/${suffix}${this.counter++ === 0 ? '' : `_${this.counter}`}`;
  }

  /** Adds a canonical op; the one producing the converter's first result takes the TF node's name. */
  op(type: string, inputs: readonly (Value | undefined)[], attrs: Record<string, AttrValue> = {}, outputs = 1): Value[] {
    // a count from the file (num_split, num): refused before an anchor per output is made
    if (!(Number.isSafeInteger(outputs) && outputs >= 1 && outputs <= MAX_OP_OUTPUTS))
      throw this.problem(`${type} would have ${outputs} outputs; at most ${MAX_OP_OUTPUTS}`);
    const values = this.builder.op(type, inputs, outputs, { name: this.name(type), attrs });
    this.created.add(values[0]?.node);
    return values;
  }
  op1(type: string, inputs: readonly (Value | undefined)[], attrs: Record<string, AttrValue> = {}): Value {
    return this.op(type, inputs, attrs, 1)[0] as Value;
  }
  /** Adds one op of the `tsge` domain (such as tsge::SequenceSet), named as `op` names its ops. */
  tsgeOp(type: string, inputs: readonly (Value | undefined)[], attrs: Record<string, AttrValue> = {}): Value {
    const [value] = this.builder.op(type, inputs, 1, { name: this.name(type), attrs, domain: TSGE_DOMAIN });
    this.created.add(value?.node);
    return value as Value;
  }

  constant(tensor: HostTensor): Value {
    const v = this.builder.constant(this.name('const'), tensor);
    this.setInfo(v, { constant: tensor, rank: tensor.dims.length, dtype: tensor.type });
    return v;
  }
  int64s(values: readonly number[], dims: readonly number[] = [values.length]): Value {
    return this.constant(
      createTensor(
        'int64',
        dims,
        BigInt64Array.from(values, (v) => BigInt(v)),
      ),
    );
  }
  scalar(value: number, dtype: DataType): Value {
    const t = createTensor(dtype, []);
    (t.data as unknown as (number | bigint)[])[0] = dtype === 'int64' || dtype === 'uint64' ? BigInt(value) : value;
    return this.constant(t);
  }

  /** The value as int64 (shape-like inputs: ONNX wants int64 where TF allows int32). */
  toInt64(value: Value): Value {
    const c = this.infoOf(value)?.constant;
    if (c) return c.type === 'int64' ? value : this.int64s(toNumberArray(c), c.dims);
    if (this.dtypeOf(value) === 'int64') return value;
    return this.note(this.op1('Cast', [value], { to: attr.int(ONNX_DTYPE.int64) }), { dtype: 'int64' });
  }
  /** A scalar or 1-D value as 1-D int64 (axes inputs). */
  toInt64List(value: Value): Value {
    const c = this.infoOf(value)?.constant;
    if (c) return this.int64s(toNumberArray(c));
    return this.op1('Reshape', [this.toInt64(value), this.int64s([-1])]);
  }
  cast(value: Value, to: DataType): Value {
    if (this.dtypeOf(value) === to) return value;
    return this.note(this.op1('Cast', [value], { to: attr.int(ONNX_DTYPE[to]) }), { dtype: to });
  }
  transpose(value: Value, perm: readonly number[]): Value {
    const rank = this.rankOf(value);
    return this.note(this.op1('Transpose', [value], { perm: attr.ints(perm) }), rank !== undefined ? { rank } : {});
  }
}

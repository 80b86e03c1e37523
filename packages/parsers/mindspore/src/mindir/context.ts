import {
  type AttrValue,
  type DataType,
  type GraphBuilder,
  type HostTensor,
  TsgeError,
  type Value,
  createTensor,
  createTensorDesc,
  isHostTensor,
} from '@tsge/metadef';
import type { AttrJs } from './values.js';

/** What a MindIR name refers to while the graph is built. */
export type MsValue =
  | { readonly kind: 'value'; readonly value: Value }
  | { readonly kind: 'const'; readonly tensor: HostTensor; readonly name: string }
  | { readonly kind: 'tuple'; readonly items: readonly MsValue[] }
  | { readonly kind: 'attr'; readonly value: AttrJs }
  | { readonly kind: 'monad' };

/** An output's dtype and shape as the file records them (the node's `shape` attribute). */
export interface OutputInfo {
  readonly dtype: DataType;
  readonly shape: readonly number[];
}

/** One MindIR node being converted: its primitive's attributes, inputs and recorded output shapes. */
export class NodeContext {
  private count = 0;

  constructor(
    readonly builder: GraphBuilder,
    readonly name: string,
    readonly op: string,
    readonly attrs: ReadonlyMap<string, AttrJs>,
    readonly inputs: readonly MsValue[],
    readonly outputs: readonly OutputInfo[],
    private readonly constants: Map<HostTensor, Value>,
  ) {}

  fail(reason: string): never {
    throw TsgeError.of('TSGE-E3304', { node: this.name, op: this.op, reason }, { node: this.name, opType: this.op });
  }

  input(i: number): MsValue {
    const v = this.inputs[i];
    if (!v) this.fail(`needs input ${i}`);
    return v as MsValue;
  }

  /** Input i as a graph value (constants become Const nodes once). */
  value(i: number): Value {
    return this.toValue(this.input(i));
  }

  toValue(v: MsValue): Value {
    if (v.kind === 'value') return v.value;
    if (v.kind === 'const') {
      const cached = this.constants.get(v.tensor);
      if (cached) return cached;
      const made = this.builder.constant(v.name, v.tensor);
      this.constants.set(v.tensor, made);
      return made;
    }
    if (v.kind === 'attr') {
      const tensor = attrTensor(v.value);
      if (!tensor) this.fail('an input is a value that is not a tensor');
      return this.builder.constant(`${this.name}/const`, tensor as HostTensor);
    }
    return this.fail(v.kind === 'tuple' ? 'a tuple is used where a tensor is expected' : 'a monad is used where a tensor is expected');
  }

  /** Input i as constant integers (shapes, axes, permutations). */
  ints(i: number): number[] {
    const v = this.input(i);
    const values = constInts(v);
    if (!values) this.fail(`input ${i} must be a constant integer list`);
    return values as number[];
  }

  attr(name: string): AttrJs | undefined {
    return this.attrs.get(name);
  }

  intAttr(name: string, fallback: number): number {
    const v = this.attrs.get(name);
    if (v === undefined) return fallback;
    if (typeof v === 'number') return v;
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (Array.isArray(v) && v.length === 1) return Number(flatInts(v)[0]);
    return this.fail(`attribute ${name} must be an integer`);
  }

  intsAttr(name: string, fallback?: number[]): number[] {
    const v = this.attrs.get(name);
    if (v === undefined) {
      if (fallback) return fallback;
      this.fail(`attribute ${name} is missing`);
    }
    if (typeof v === 'number') return [v];
    const flat = flatInts(v as AttrJs);
    if (!flat.length && !(Array.isArray(v) && v.length === 0)) this.fail(`attribute ${name} must be integers`);
    return flat;
  }

  boolAttr(...names: string[]): boolean {
    for (const name of names) {
      const v = this.attrs.get(name);
      if (v !== undefined) return v === true || v === 1;
    }
    return false;
  }

  stringAttr(name: string, fallback: string): string {
    const v = this.attrs.get(name);
    if (v === undefined) return fallback;
    if (typeof v === 'string') return v;
    if (Array.isArray(v) && typeof v[0] === 'string') return v[0] as string;
    if (typeof v === 'number') return String(v);
    return this.fail(`attribute ${name} must be a string`);
  }

  /** The recorded shape of output i (or unknown rank). */
  out(i = 0): OutputInfo {
    return this.outputs[i] ?? { dtype: 'float32', shape: [-2] };
  }

  op1(type: string, inputs: readonly (Value | undefined)[], attrs: Record<string, AttrValue> = {}, info: OutputInfo = this.out(0)): Value {
    return this.builder.op(type, inputs, { name: this.nextName(), attrs, outputDescs: [createTensorDesc(info.dtype, info.shape)] });
  }

  opN(type: string, inputs: readonly (Value | undefined)[], infos: readonly OutputInfo[], attrs: Record<string, AttrValue> = {}): Value[] {
    return this.builder.opN(type, inputs, infos.length, {
      name: this.nextName(),
      attrs,
      outputDescs: infos.map((o) => createTensorDesc(o.dtype, o.shape)),
    });
  }

  int64s(values: readonly number[], suffix = 'ints'): Value {
    return this.builder.constant(`${this.name}/${suffix}`, BigInt64Array.from(values.map(BigInt)), [values.length], 'int64');
  }

  floats(values: readonly number[], dims: readonly number[], suffix = 'floats'): Value {
    return this.builder.constant(`${this.name}/${suffix}`, Float32Array.from(values), dims, 'float32');
  }

  private nextName(): string {
    return this.count++ === 0 ? this.name : `${this.name}/${this.count - 1}`;
  }
}

export function isTensor(v: AttrJs | undefined): v is HostTensor {
  // other decoded attribute objects ({ none: true }, dictionaries) have no dtype, dims and data
  if (typeof v !== 'object' || v === null || Array.isArray(v) || !isHostTensor(v as HostTensor)) return false;
  const t = v as Partial<HostTensor>;
  return typeof t.type === 'string' && Array.isArray(t.dims) && t.data !== undefined;
}

function flatInts(v: AttrJs): number[] {
  if (typeof v === 'number') return [v];
  if (typeof v === 'boolean') return [v ? 1 : 0];
  if (Array.isArray(v)) return v.flatMap((x) => flatInts(x as AttrJs));
  if (isTensor(v)) return Array.from(v.data as ArrayLike<number | bigint>, Number);
  return [];
}

/** A constant's integers: a tuple of ints, an int tensor, or a scalar. */
export function constInts(v: MsValue): number[] | undefined {
  if (v.kind === 'const') return Array.from(v.tensor.data as ArrayLike<number | bigint>, Number);
  if (v.kind === 'attr') {
    const flat = flatInts(v.value);
    return flat.length || (Array.isArray(v.value) && v.value.length === 0) ? flat : undefined;
  }
  if (v.kind === 'tuple') {
    const parts = v.items.map(constInts);
    return parts.every((p) => p?.length === 1) ? parts.map((p) => (p as number[])[0] as number) : undefined;
  }
  return undefined;
}

/** A Constant node's value as a tensor: tensors as they are, numbers as float32/int64 scalars or lists. */
export function attrTensor(v: AttrJs): HostTensor | undefined {
  if (isTensor(v)) return v;
  if (typeof v === 'number')
    return Number.isInteger(v) ? createTensor('int64', [], BigInt64Array.of(BigInt(v))) : createTensor('float32', [], Float32Array.of(v));
  if (typeof v === 'boolean') return createTensor('bool', [], Uint8Array.of(v ? 1 : 0));
  if (Array.isArray(v) && v.every((x) => typeof x === 'number')) {
    const list = v as number[];
    return list.every(Number.isInteger)
      ? createTensor('int64', [list.length], BigInt64Array.from(list.map(BigInt)))
      : createTensor('float32', [list.length], Float32Array.from(list));
  }
  return undefined;
}

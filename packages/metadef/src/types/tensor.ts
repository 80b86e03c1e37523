import { type DataType, type TensorStorage, storageConstructor, storageLanes } from './dtype.js';
import { elementCount } from './shape.js';

/**
 * A tensor's data on the host, or a view into device memory. `data` may be a view over a
 * larger buffer (a WebAssembly.Memory arena); kernels never assume they own it.
 * Shaped like onnxruntime-common's Tensor (`type`, `dims`, `data`) so users can pass those in.
 */
export interface HostTensor {
  readonly type: DataType;
  readonly dims: readonly number[];
  readonly data: TensorStorage;
}

/** An ONNX sequence value. */
export interface SequenceValue {
  readonly kind: 'sequence';
  readonly elementType: DataType;
  readonly items: readonly HostTensor[];
  /**
   * Per item, true where it stands for an element never written (a slot of a TensorFlow
   * TensorArray or TensorList, see tsge::SequenceReserve): zeros of the element shape, or a tensor
   * of no elements while that shape is unknown. Absent: every item was written.
   */
  readonly unwritten?: readonly boolean[];
  /**
   * The unwritten items stand for elements whose shape nothing has given yet (a list reserved
   * without an element shape, nothing written since): they are tensors of no elements, which reads
   * and stacks refuse. The first element written or inserted gives them its shape.
   */
  readonly unshaped?: boolean;
}
/** An ONNX optional value: absent, a tensor or a sequence. */
export interface OptionalValue {
  readonly kind: 'optional';
  readonly value: HostTensor | SequenceValue | undefined;
}
export type RuntimeValue = HostTensor | SequenceValue | OptionalValue;

export function isSequenceValue(v: RuntimeValue | undefined): v is SequenceValue {
  return v !== undefined && 'kind' in v && v.kind === 'sequence';
}
export function isOptionalValue(v: RuntimeValue | undefined): v is OptionalValue {
  return v !== undefined && 'kind' in v && v.kind === 'optional';
}
export function isHostTensor(v: RuntimeValue | undefined): v is HostTensor {
  return v !== undefined && !('kind' in v);
}

/** Allocates zeroed storage for `count` elements of `dtype`. */
export function allocateStorage(dtype: DataType, count: number): TensorStorage {
  const Ctor = storageConstructor(dtype);
  if (!Ctor) return new Array<string>(count).fill('');
  return new Ctor(count * storageLanes(dtype));
}

/** Creates a tensor; without data it is zero-filled. Data length is checked against dims. */
export function createTensor(type: DataType, dims: readonly number[], data?: TensorStorage): HostTensor {
  const count = elementCount(dims);
  const storage = data ?? allocateStorage(type, count);
  const expected = count * storageLanes(type);
  if (storage.length !== expected) {
    throw new RangeError(`tensor of type ${type} and dims [${dims.join(',')}] needs ${expected} elements, got ${storage.length}`);
  }
  return { type, dims: [...dims], data: storage };
}

export function tensorElementCount(t: HostTensor): number {
  return elementCount(t.dims);
}

/** Reads element i as a JS number (bigint → number, float16/bfloat16 decoded). */
export function readNumber(t: HostTensor, i: number): number {
  const v = t.data[i];
  if (t.type === 'float16') return float16ToNumber(v as number);
  if (t.type === 'bfloat16') return bfloat16ToNumber(v as number);
  return typeof v === 'bigint' ? Number(v) : Number(v);
}

/** All elements as numbers (for shape-like inputs such as Reshape's shape). */
export function toNumberArray(t: HostTensor): number[] {
  const n = tensorElementCount(t);
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = readNumber(t, i);
  return out;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE half (raw bits) → number. */
export function float16ToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** number → IEEE half bits, round to nearest even. */
export function numberToFloat16(value: number): number {
  f32[0] = value;
  const x = u32[0] as number;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    let r = mant >> shift;
    const rem = mant & ((1 << shift) - 1);
    if (rem > half || (rem === half && r & 1)) r++;
    return sign | r;
  }
  let r = mant >> 13;
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && r & 1)) {
    r++;
    if (r === 0x400) {
      r = 0;
      e++;
      if (e >= 31) return sign | 0x7c00;
    }
  }
  return sign | (e << 10) | r;
}

export function bfloat16ToNumber(bits: number): number {
  u32[0] = (bits & 0xffff) << 16;
  return f32[0] as number;
}

/** number → bfloat16 bits, round to nearest even (NaN stays NaN). */
export function numberToBfloat16(value: number): number {
  f32[0] = value;
  const x = u32[0] as number;
  if (Number.isNaN(value)) return 0x7fc0;
  const rounded = x + 0x7fff + ((x >>> 16) & 1);
  return (rounded >>> 16) & 0xffff;
}

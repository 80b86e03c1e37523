/**
 * Float I/O for nn kernels: float32/float64 are used in place, float16/bfloat16 are decoded into a
 * Float32Array work buffer and encoded back on commit, so each kernel has one float hot loop.
 */
import {
  type DataType,
  type HostTensor,
  type KernelContextV1,
  TsgeError,
  bfloat16ToNumber,
  float16ToNumber,
  numberToBfloat16,
  numberToFloat16,
} from '@tsge/metadef';
import type { FloatArray } from '@tsge/ops/kernel-support';

/** Input data as floats: the tensor's own storage for float32/float64, a decoded copy otherwise. */
export function readFloats(t: HostTensor): FloatArray {
  const data = t.data;
  if (data instanceof Float32Array || data instanceof Float64Array) return data;
  const n = data.length;
  const out = new Float32Array(n);
  if (t.type === 'float16') {
    const bits = data as Uint16Array;
    for (let i = 0; i < n; i++) out[i] = float16ToNumber(bits[i] as number);
  } else if (t.type === 'bfloat16') {
    const bits = data as Uint16Array;
    for (let i = 0; i < n; i++) out[i] = bfloat16ToNumber(bits[i] as number);
  } else if (data instanceof BigInt64Array || data instanceof BigUint64Array) {
    for (let i = 0; i < n; i++) out[i] = Number(data[i]);
  } else if (Array.isArray(data)) {
    throw TsgeError.of('TSGE-E4003', { reason: 'string tensor where a number tensor was expected' });
  } else {
    for (let i = 0; i < n; i++) out[i] = data[i] as number;
  }
  return out;
}

/** Input data as a fresh Float64Array (for exact accumulation of integer or mixed inputs). */
export function readFloat64(t: HostTensor): Float64Array {
  const f = readFloats(t);
  return f instanceof Float64Array ? f : Float64Array.from(f);
}

export interface FloatOutput {
  readonly tensor: HostTensor;
  /** Where the kernel writes; the output's own storage for float32/float64. */
  readonly data: FloatArray;
  /** Encodes the work buffer into the output (no-op for float32/float64). */
  commit(): void;
}

/** A float output of `dtype`; call `commit()` after writing `data`. */
export function floatOutput(ctx: KernelContextV1, index: number, dims: readonly number[], dtype: DataType): FloatOutput {
  return floatOutputOf(ctx.output(index, dims, dtype));
}

/** The FloatOutput of an output tensor already obtained from the context. */
export function floatOutputOf(tensor: HostTensor): FloatOutput {
  const out = tensor.data;
  if (out instanceof Float32Array || out instanceof Float64Array) return { tensor, data: out, commit: () => {} };
  const work = new Float32Array(out.length);
  return {
    tensor,
    data: work,
    commit: () => writeFloatsInto(tensor, work),
  };
}

/** Writes numbers into a tensor of any numeric dtype (float16/bfloat16 encoded, ints truncated). */
export function writeFloatsInto(tensor: HostTensor, values: ArrayLike<number>): void {
  const out = tensor.data;
  const n = values.length;
  if (tensor.type === 'float16') {
    const bits = out as Uint16Array;
    for (let i = 0; i < n; i++) bits[i] = numberToFloat16(values[i] as number);
  } else if (tensor.type === 'bfloat16') {
    const bits = out as Uint16Array;
    for (let i = 0; i < n; i++) bits[i] = numberToBfloat16(values[i] as number);
  } else if (out instanceof BigInt64Array) {
    for (let i = 0; i < n; i++) out[i] = BigInt(Math.trunc(values[i] as number));
  } else if (out instanceof BigUint64Array) {
    for (let i = 0; i < n; i++) out[i] = BigInt(Math.trunc(values[i] as number));
  } else if (Array.isArray(out)) {
    throw TsgeError.of('TSGE-E4003', { reason: 'cannot write numbers into a string tensor' });
  } else {
    for (let i = 0; i < n; i++) out[i] = values[i] as number;
  }
}

/** Whether input i is present (not omitted, not an empty optional name). */
export function hasInput(ctx: { input(index: number): unknown; inputCount: number }, index: number): boolean {
  return index < ctx.inputCount && ctx.input(index) !== undefined;
}

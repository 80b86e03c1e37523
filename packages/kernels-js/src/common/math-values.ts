/**
 * Number views of tensors for math kernels: numeric storage is used as is; float16, bfloat16 and
 * the small float kinds are decoded into a Float64Array; int64/uint64 become Float64Array (exact
 * up to 2^53, the kernels that need full 64-bit precision have BigInt paths of their own).
 */
import {
  type DataType,
  type HostTensor,
  type KernelContextV1,
  bfloat16ToNumber,
  float16ToNumber,
  numberToBfloat16,
  numberToFloat16,
} from '@tsge/metadef';
import { encodeSmallFloat, isSmallFloatType, smallFloatDecodeTable } from './math-float8.js';
import type { NumberArray } from '@tsge/ops/kernel-support';
import { kernelError, requireTensor } from './kernel-inputs.js';

/** Whether a dtype's host storage holds its values directly as JS numbers. */
export function isDirectNumberType(dtype: DataType): boolean {
  switch (dtype) {
    case 'float32':
    case 'float64':
    case 'int8':
    case 'uint8':
    case 'int16':
    case 'uint16':
    case 'int32':
    case 'uint32':
    case 'bool':
    case 'int4':
    case 'uint4':
      return true;
    default:
      return false;
  }
}

/** The tensor's values as numbers (a view when possible, else a decoded copy). */
export function numbersOf(t: HostTensor): NumberArray {
  if (isDirectNumberType(t.type)) return t.data as NumberArray;
  const n = t.data.length;
  const out = new Float64Array(n);
  const data = t.data;
  switch (t.type) {
    case 'float16':
      for (let i = 0; i < n; i++) out[i] = float16ToNumber(data[i] as number);
      break;
    case 'bfloat16':
      for (let i = 0; i < n; i++) out[i] = bfloat16ToNumber(data[i] as number);
      break;
    case 'int64':
    case 'uint64':
      for (let i = 0; i < n; i++) out[i] = Number(data[i] as bigint);
      break;
    case 'string':
      for (let i = 0; i < n; i++) out[i] = Number(data[i] as string);
      break;
    default:
      if (isSmallFloatType(t.type)) {
        const table = smallFloatDecodeTable(t.type);
        for (let i = 0; i < n; i++) out[i] = table[data[i] as number]!;
      } else {
        for (let i = 0; i < n; i++) out[i] = Number(data[i]);
      }
  }
  return out;
}

/** Writes numbers into a tensor of any non-string dtype (rounding/encoding as the dtype needs). */
export function storeNumbers(target: HostTensor, values: ArrayLike<number>, saturate = true): void {
  const data = target.data;
  const n = values.length;
  switch (target.type) {
    case 'float16':
      for (let i = 0; i < n; i++) (data as Uint16Array)[i] = numberToFloat16(values[i]!);
      return;
    case 'bfloat16':
      for (let i = 0; i < n; i++) (data as Uint16Array)[i] = numberToBfloat16(values[i]!);
      return;
    case 'int64':
      for (let i = 0; i < n; i++) (data as BigInt64Array)[i] = toBigInt(values[i]!);
      return;
    case 'uint64':
      for (let i = 0; i < n; i++) (data as BigUint64Array)[i] = BigInt.asUintN(64, toBigInt(values[i]!));
      return;
    case 'bool':
      for (let i = 0; i < n; i++) (data as Uint8Array)[i] = values[i] !== 0 ? 1 : 0;
      return;
    case 'string':
      for (let i = 0; i < n; i++) (data as string[])[i] = String(values[i]);
      return;
    default:
      if (isSmallFloatType(target.type)) {
        for (let i = 0; i < n; i++) (data as Uint8Array)[i] = encodeSmallFloat(target.type, values[i]!, saturate);
      } else {
        const out = data as NumberArray;
        for (let i = 0; i < n; i++) out[i] = values[i]!;
      }
  }
}

/** Truncates toward zero; NaN becomes 0 and infinities saturate at ±2^63 (as most CPUs do). */
export function toBigInt(value: number): bigint {
  if (Number.isNaN(value)) return 0n;
  if (value >= 2 ** 63) return 9223372036854775807n;
  if (value <= -(2 ** 63)) return -9223372036854775808n;
  return BigInt(Math.trunc(value));
}

/**
 * An output a kernel fills with numbers: `values` is the output storage itself when it holds
 * numbers directly, else a scratch array that `commit()` encodes into the output.
 */
export interface NumberOutput {
  readonly tensor: HostTensor;
  readonly values: NumberArray;
  commit(): void;
}

export function numberOutput(ctx: KernelContextV1, index: number, dims: readonly number[], dtype: DataType): NumberOutput {
  const tensor = ctx.output(index, dims, dtype);
  // bool is direct too: writers of bool outputs store 0/1 only
  if (isDirectNumberType(dtype)) {
    return { tensor, values: tensor.data as NumberArray, commit: () => {} };
  }
  const values = new Float64Array(tensor.data.length);
  return { tensor, values, commit: () => storeNumbers(tensor, values) };
}

/** Input i as a tensor of one of `dtypes`, or a kernel error. */
export function requireTensorOf(ctx: KernelContextV1, index: number, dtypes: readonly DataType[]): HostTensor {
  const t = requireTensor(ctx, index);
  if (!dtypes.includes(t.type)) throw kernelError(ctx, `input ${index} has dtype ${t.type}; allowed: ${dtypes.join(', ')}`);
  return t;
}

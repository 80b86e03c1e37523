/**
 * int64 fields arrive from protobufjs as `number` or a Long-like `{ low, high, unsigned }`.
 * Rule: tensor data keeps full precision as `bigint`; counts, dims and attribute ints become a JS
 * number, saturated to ±(2^53-1) (ONNX uses INT64_MAX as "to the end", which saturates cleanly).
 */
export interface LongLike {
  readonly low: number;
  readonly high: number;
  readonly unsigned?: boolean;
}

export type Int64Field = number | LongLike | null | undefined;

export function int64ToBigInt(value: Int64Field, unsigned = false): bigint {
  if (value === null || value === undefined) return 0n;
  if (typeof value === 'number') return BigInt(Math.trunc(value));
  const combined = (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0);
  return unsigned ? BigInt.asUintN(64, combined) : BigInt.asIntN(64, combined);
}

export function int64ToNumber(value: Int64Field, unsigned = false): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'number') return value;
  const big = int64ToBigInt(value, unsigned);
  if (big > BigInt(Number.MAX_SAFE_INTEGER)) return Number.MAX_SAFE_INTEGER;
  if (big < BigInt(Number.MIN_SAFE_INTEGER)) return Number.MIN_SAFE_INTEGER;
  return Number(big);
}

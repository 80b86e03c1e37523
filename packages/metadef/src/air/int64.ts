/**
 * The int64 rule: every int64 field of the IR becomes a JS number, saturated to
 * ±(2^53-1) (`Number.MAX_SAFE_INTEGER`). Tensor data is not affected: int64 tensors stay raw bytes
 * and are read as BigInt64Array.
 */

/** A decoded int64: protobufjs gives a number, or a Long when the `long` package is present. */
export type Int64Like = number | { toNumber(): number } | null | undefined;

export function int64ToNumber(value: Int64Like): number {
  if (value === null || value === undefined) return 0;
  const n = typeof value === 'number' ? value : value.toNumber();
  return saturate(n);
}

/** Clamps to the safe-integer range and truncates fractions (NaN becomes 0). */
export function saturate(value: number): number {
  if (Number.isNaN(value)) return 0;
  if (value > Number.MAX_SAFE_INTEGER) return Number.MAX_SAFE_INTEGER;
  if (value < -Number.MAX_SAFE_INTEGER) return -Number.MAX_SAFE_INTEGER;
  return Math.trunc(value);
}

/** The shared engine of broadcasting binary elementwise kernels (arithmetic, comparison, bitwise). */
import type { NumberArray } from './math-values.js';

/** Fills one output row: out[o + k] = f(a[ia + k*sa], b[ib + k*sb]) for k < n. */
export type NumberRow = (
  a: NumberArray,
  ia: number,
  sa: number,
  b: NumberArray,
  ib: number,
  sb: number,
  out: NumberArray,
  o: number,
  n: number,
) => void;

export interface BinaryImpl {
  /** Element function on numbers (floats decoded; 64-bit ints only when `bigint` is absent). */
  readonly number: (a: number, b: number) => number;
  /** Element function for int64/uint64 operands, returning the output element. */
  readonly bigint?: (a: bigint, b: bigint) => bigint;
  /** Element function for int64/uint64 operands returning a bool (comparisons). */
  readonly bigintPredicate?: (a: bigint, b: bigint) => boolean;
  /** An optional hand-written row loop for speed. */
  readonly row?: NumberRow;
}

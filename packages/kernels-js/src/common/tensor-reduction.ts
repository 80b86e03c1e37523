// Scatter-style reductions (none/add/mul/max/min) on raw storage of any numeric dtype.
import { type DataType, type TensorStorage, bfloat16ToNumber, float16ToNumber, numberToBfloat16, numberToFloat16 } from '@tsge/metadef';

export type ScatterReduction = 'none' | 'add' | 'mul' | 'max' | 'min';

/** target[t] = reduce(target[t], source[s]) for one storage pair (dispatch once, call per element). */
export type Combine = (target: TensorStorage, t: number, source: TensorStorage, s: number) => void;

export function isScatterReduction(value: string): value is ScatterReduction {
  return value === 'none' || value === 'add' || value === 'mul' || value === 'max' || value === 'min';
}

function numeric(op: (a: number, b: number) => number, decode?: (bits: number) => number, encode?: (v: number) => number): Combine {
  if (decode && encode) {
    return (target, t, source, s) => {
      const tv = target as Uint16Array;
      tv[t] = encode(op(decode(tv[t] as number), decode((source as Uint16Array)[s] as number)));
    };
  }
  return (target, t, source, s) => {
    const tv = target as Float64Array;
    tv[t] = op(tv[t] as number, (source as Float64Array)[s] as number);
  };
}

function bigint(op: (a: bigint, b: bigint) => bigint): Combine {
  return (target, t, source, s) => {
    const tv = target as BigInt64Array;
    tv[t] = op(tv[t] as bigint, (source as BigInt64Array)[s] as bigint);
  };
}

/** The combine step for a reduction and dtype; undefined when the dtype cannot be reduced. */
export function scatterCombiner(reduction: ScatterReduction, dtype: DataType): Combine | undefined {
  if (reduction === 'none') {
    return (target, t, source, s) => {
      (target as unknown as unknown[])[t] = (source as unknown as unknown[])[s];
    };
  }
  if (dtype === 'string' || dtype === 'complex64' || dtype === 'complex128') return undefined;
  if (dtype === 'int64' || dtype === 'uint64') {
    const wrap = dtype === 'int64' ? (v: bigint) => BigInt.asIntN(64, v) : (v: bigint) => BigInt.asUintN(64, v);
    if (reduction === 'add') return bigint((a, b) => wrap(a + b));
    if (reduction === 'mul') return bigint((a, b) => wrap(a * b));
    // biome-ignore lint/complexity/useMathMinMax: Math.max does not take bigints
    if (reduction === 'max') return bigint((a, b) => (a > b ? a : b));
    // biome-ignore lint/complexity/useMathMinMax: Math.min does not take bigints
    return bigint((a, b) => (a < b ? a : b));
  }
  const op =
    reduction === 'add'
      ? (a: number, b: number) => a + b
      : reduction === 'mul'
        ? dtype === 'int32' || dtype === 'uint32'
          ? (a: number, b: number) => Math.imul(a, b)
          : (a: number, b: number) => a * b
        : reduction === 'max'
          ? (a: number, b: number) => (a >= b || Number.isNaN(a) ? a : b)
          : (a: number, b: number) => (a <= b || Number.isNaN(a) ? a : b);
  if (dtype === 'float16') return numeric(op, float16ToNumber, numberToFloat16);
  if (dtype === 'bfloat16') return numeric(op, bfloat16ToNumber, numberToBfloat16);
  if (dtype === 'bool') return numeric((a, b) => (op(a, b) ? 1 : 0));
  return numeric(op);
}

/**
 * Float I/O for nn kernels: float32/float64 are used in place, float16/bfloat16 are decoded into a
 * Float32Array work buffer and encoded back on commit, so each kernel has one float hot loop.
 */
import { type DataType, type InferenceContextV1, type ValueInfo, InferenceError } from '@tsge/metadef';

export type FloatArray = Float32Array | Float64Array;

/** The float dtypes nn ops accept. */
export const NN_FLOAT_TYPES: readonly DataType[] = ['float32', 'float64', 'float16', 'bfloat16'];

/** Normalizes a possibly negative axis for a rank; throws InferenceError when out of range. */
export function normalizeAxisForInfer(ctx: InferenceContextV1, axis: number, rank: number): number {
  const a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) throw new InferenceError(`${ctx.opType} ${ctx.nodeName}: axis ${axis} out of range for rank ${rank}`);
  return a;
}

/** Input i's ValueInfo, or an InferenceError. */
export function inputInfo(ctx: InferenceContextV1, index: number): ValueInfo {
  const v = ctx.input(index);
  if (!v) throw new InferenceError(`${ctx.opType} ${ctx.nodeName}: input ${index} is required`);
  return v;
}

/** Product of dims in [from, to). */
export function dimProduct(dims: readonly number[], from = 0, to = dims.length): number {
  let n = 1;
  for (let i = from; i < to; i++) n *= dims[i] as number;
  return n;
}

/** Axis handling shared by reductions (ReduceSum..., ArgMax, Hardmax, CumSum...). */
import { type HostTensor, type InferenceContextV1, type Shape, InferenceError, isUnknownRank, toNumberArray } from '@tsge/metadef';

/** Normalizes possibly negative axes against `rank`; returns undefined when one is out of range. */
export function normalizeAxes(axes: readonly number[], rank: number): number[] | undefined {
  const out: number[] = [];
  for (const a of axes) {
    const axis = a < 0 ? a + rank : a;
    if (!Number.isInteger(axis) || axis < 0 || axis >= Math.max(rank, 1)) return undefined;
    if (!out.includes(axis)) out.push(axis);
  }
  return out.sort((x, y) => x - y);
}

/** The axes of a Reduce* node: input 1 (opset 13/18+) or the legacy `axes` attribute. */
export function readReduceAxes(
  inputValue: HostTensor | undefined,
  hasInput: boolean,
  legacy: readonly number[] | undefined,
): readonly number[] | 'unknown' {
  if (inputValue) return toNumberArray(inputValue);
  if (hasInput) return 'unknown';
  return legacy ?? [];
}

/** Shape inference shared by the Reduce* family. */
export function inferReduceShape(ctx: InferenceContextV1, inputShape: Shape): Shape {
  const keepdims = ctx.attrs.int('keepdims', 1) !== 0;
  const noop = ctx.attrs.int('noop_with_empty_axes', 0) !== 0;
  const axesInput = ctx.input(1);
  const axes = readReduceAxes(ctx.inputValue(1), axesInput !== undefined, ctx.attrs.has('axes') ? ctx.attrs.ints('axes') : undefined);
  if (isUnknownRank(inputShape)) return inputShape;
  const rank = inputShape.length;
  if (axes === 'unknown') return keepdims ? inputShape.map(() => -1) : [-2];
  if (axes.length === 0) {
    if (noop) return inputShape;
    return keepdims ? inputShape.map(() => 1) : [];
  }
  const normalized = normalizeAxes(axes, rank);
  if (!normalized) throw new InferenceError(`${ctx.opType} ${ctx.nodeName}: axes [${axes.join(',')}] out of range for rank ${rank}`);
  const out: (number | string)[] = [];
  inputShape.forEach((d, i) => {
    if (!normalized.includes(i)) out.push(d);
    else if (keepdims) out.push(1);
  });
  return out;
}

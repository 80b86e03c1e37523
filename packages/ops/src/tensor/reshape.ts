// Ops that change only the dims of a tensor, never the order of its elements.
import { type Dim, type Shape, InferenceError, isUnknownRank } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { dimProduct, knownInts, normalizeAxis, unknownDims, whereOf, MOVABLE_TYPES } from '../common/tensor-infer.js';
import { defineOp, param } from '../define.js';

const ALL = [{ name: 'T', allowed: MOVABLE_TYPES }];

/** Resolves Reshape's requested shape against the input shape; -1 where it cannot be known. */
export function resolveReshape(input: Shape, requested: readonly number[], allowZero: boolean, where: string): Dim[] {
  const out: Dim[] = [];
  let inferAt = -1;
  for (let i = 0; i < requested.length; i++) {
    const r = requested[i] as number;
    if (r === -1) {
      if (inferAt >= 0) throw new InferenceError(`${where}: shape has more than one -1`);
      inferAt = i;
      out.push(-1);
    } else if (r === 0 && !allowZero) {
      if (isUnknownRank(input)) out.push(-1);
      else {
        if (i >= input.length) throw new InferenceError(`${where}: shape[${i}] = 0 copies a dim the input does not have`);
        out.push(input[i] as Dim);
      }
    } else if (r < -1) {
      throw new InferenceError(`${where}: shape[${i}] = ${r} is invalid`);
    } else out.push(r);
  }
  if (allowZero && inferAt >= 0 && requested.includes(0)) throw new InferenceError(`${where}: allowzero with both 0 and -1`);
  const total = isUnknownRank(input) ? -1 : dimProduct(input);
  if (inferAt >= 0) {
    const rest = dimProduct(out.filter((_, i) => i !== inferAt));
    if (typeof total === 'number' && total >= 0 && typeof rest === 'number' && rest >= 0) {
      if (rest === 0 ? total !== 0 : total % rest !== 0)
        throw new InferenceError(`${where}: cannot reshape ${total} elements to [${requested.join(',')}]`);
      out[inferAt] = rest === 0 ? 0 : total / rest;
    }
  } else {
    const n = dimProduct(out);
    if (typeof total === 'number' && total >= 0 && typeof n === 'number' && n >= 0 && n !== total)
      throw new InferenceError(`${where}: cannot reshape ${total} elements to [${requested.join(',')}]`);
  }
  return out;
}

export const reshapeOp = defineOp({
  type: 'Reshape',
  sinceVersion: 25,
  inputs: [param.required('data', 'T'), param.required('shape', 'int64')],
  outputs: [param.required('reshaped', 'T')],
  attributes: [{ name: 'allowzero', kind: 'int', default: { kind: 'int', value: 0 } }],
  typeConstraints: ALL,
  infer(ctx) {
    const x = requireInput(ctx, 0);
    const shape = requireInput(ctx, 1);
    const requested = knownInts(ctx, 1);
    if (requested) {
      ctx.setOutput(0, { dtype: x.dtype, shape: resolveReshape(x.shape, requested, ctx.attrs.int('allowzero', 0) !== 0, whereOf(ctx)) });
      return;
    }
    const n = shape.shape[0];
    ctx.setOutput(0, { dtype: x.dtype, shape: typeof n === 'number' && n >= 0 ? unknownDims(n) : [-2] });
  },
});

export function flattenShape(shape: Shape, axisAttr: number, where: string): Dim[] {
  if (isUnknownRank(shape)) return [-1, -1];
  // Flatten's axis lies in [-rank, rank]; a negative one counts from rank
  const rank = shape.length;
  if (!Number.isInteger(axisAttr) || axisAttr < -rank || axisAttr > rank)
    throw new InferenceError(`${where}: axis ${axisAttr} is out of range for rank ${rank}`);
  const axis = axisAttr < 0 ? axisAttr + rank : axisAttr;
  return [dimProduct(shape.slice(0, axis)), dimProduct(shape.slice(axis))];
}

export const flattenOp = defineOp({
  type: 'Flatten',
  sinceVersion: 25,
  inputs: [param.required('input', 'T')],
  outputs: [param.required('output', 'T')],
  attributes: [{ name: 'axis', kind: 'int', default: { kind: 'int', value: 1 } }],
  typeConstraints: ALL,
  infer(ctx) {
    const x = requireInput(ctx, 0);
    ctx.setOutput(0, { dtype: x.dtype, shape: flattenShape(x.shape, ctx.attrs.int('axis', 1), whereOf(ctx)) });
  },
});

export function squeezeShape(shape: Shape, axes: readonly number[] | undefined, where: string): Dim[] | undefined {
  if (isUnknownRank(shape)) return undefined;
  if (!axes) {
    if (shape.some((d) => typeof d !== 'number' || d < 0)) return undefined;
    return shape.filter((d) => d !== 1);
  }
  const drop = new Set(axes.map((a) => normalizeAxis(a, shape.length, where)));
  for (const a of drop) {
    const d = shape[a];
    if (typeof d === 'number' && d >= 0 && d !== 1) throw new InferenceError(`${where}: cannot squeeze axis ${a} of size ${d}`);
  }
  return shape.filter((_, i) => !drop.has(i));
}

export const squeezeOp = defineOp({
  type: 'Squeeze',
  sinceVersion: 25,
  inputs: [param.required('data', 'T'), param.optional('axes', 'int64')],
  outputs: [param.required('squeezed', 'T')],
  typeConstraints: ALL,
  infer(ctx) {
    const x = requireInput(ctx, 0);
    const hasAxes = ctx.input(1) !== undefined;
    const axes = hasAxes ? knownInts(ctx, 1) : undefined;
    const shape = hasAxes && !axes ? undefined : squeezeShape(x.shape, axes, whereOf(ctx));
    ctx.setOutput(0, { dtype: x.dtype, shape: shape ?? [-2] });
  },
});

export function unsqueezeShape(shape: Shape, axes: readonly number[], where: string): Dim[] {
  const rank = shape.length + axes.length;
  const insert = new Set(axes.map((a) => normalizeAxis(a, rank, where)));
  if (insert.size !== axes.length) throw new InferenceError(`${where}: axes repeat`);
  const out: Dim[] = [];
  let j = 0;
  for (let i = 0; i < rank; i++) out.push(insert.has(i) ? 1 : (shape[j++] as Dim));
  return out;
}

export const unsqueezeOp = defineOp({
  type: 'Unsqueeze',
  sinceVersion: 25,
  inputs: [param.required('data', 'T'), param.required('axes', 'int64')],
  outputs: [param.required('expanded', 'T')],
  typeConstraints: ALL,
  infer(ctx) {
    const x = requireInput(ctx, 0);
    const axes = knownInts(ctx, 1);
    if (isUnknownRank(x.shape) || !axes) {
      const n = requireInput(ctx, 1).shape[0];
      const rank = !isUnknownRank(x.shape) && typeof n === 'number' && n >= 0 ? x.shape.length + n : undefined;
      ctx.setOutput(0, { dtype: x.dtype, shape: rank === undefined ? [-2] : unknownDims(rank) });
      return;
    }
    ctx.setOutput(0, { dtype: x.dtype, shape: unsqueezeShape(x.shape, axes, whereOf(ctx)) });
  },
});

export const reshapeOps = [reshapeOp, flattenOp, squeezeOp, unsqueezeOp];

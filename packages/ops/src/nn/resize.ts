/**
 * Resize (opset 19 semantics): nearest/linear/cubic, every coordinate transformation mode,
 * antialias, exclude_outside, axes and keep_aspect_ratio_policy. The interpolation is separable,
 * so it runs as one 1-D pass per resized axis (last axis first, as the ONNX reference recurses),
 * each pass reading precomputed taps.
 */
import { type InferenceContextV1, type OpDefinitionV1, type Shape, InferenceError, isUnknownRank, toNumberArray } from '@tsge/metadef';
import { inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

interface ResizePlan {
  readonly outDims: number[];
  readonly scales: number[];
  /** Full-rank [starts..., ends...] for tf_crop_and_resize. */
  readonly roi: number[] | undefined;
}

export function normalizeAxes(axes: readonly number[], rank: number): number[] {
  return axes.map((a) => (a < 0 ? a + rank : a));
}

/** Output dims and per-axis scales from the scales or sizes input (numbers already read). */
export function planResize(
  inDims: readonly number[],
  attrs: { axes: number[]; policy: string },
  given: { scales?: readonly number[]; sizes?: readonly number[]; roi?: readonly number[] },
): ResizePlan | string {
  const rank = inDims.length;
  const axes = attrs.axes;
  const scales = new Array<number>(rank).fill(1);
  const outDims = [...inDims];
  let roi: number[] | undefined;
  if (given.roi && given.roi.length > 0) {
    if (given.roi.length !== 2 * axes.length) return `roi has ${given.roi.length} values, expected ${2 * axes.length}`;
    roi = [...new Array<number>(rank).fill(0), ...new Array<number>(rank).fill(1)];
    axes.forEach((a, i) => {
      (roi as number[])[a] = given.roi?.[i] as number;
      (roi as number[])[rank + a] = given.roi?.[axes.length + i] as number;
    });
  }
  if (given.sizes && given.sizes.length > 0) {
    if (given.sizes.length !== axes.length) return `sizes has ${given.sizes.length} values, expected ${axes.length}`;
    if (!given.sizes.every((d) => Number.isSafeInteger(d) && d >= 0))
      return `sizes [${given.sizes.join(', ')}] must be non-negative integers`;
    axes.forEach((a, i) => {
      outDims[a] = given.sizes?.[i] as number;
      scales[a] = (outDims[a] as number) / (inDims[a] as number);
    });
    if (attrs.policy !== 'stretch') {
      const picked = axes.map((a) => scales[a] as number);
      const scale = attrs.policy === 'not_larger' ? Math.min(...picked) : Math.max(...picked);
      for (const a of axes) {
        scales[a] = scale;
        outDims[a] = Math.floor(scale * (inDims[a] as number) + 0.5);
      }
    }
  } else if (given.scales && given.scales.length > 0) {
    if (given.scales.length !== axes.length) return `scales has ${given.scales.length} values, expected ${axes.length}`;
    axes.forEach((a, i) => {
      const s = given.scales?.[i] as number;
      if (!(s > 0)) return;
      scales[a] = s;
      outDims[a] = Math.floor(s * (inDims[a] as number));
    });
    if (given.scales.some((s) => !(s > 0))) return 'scales must be positive';
  } else return 'one of scales or sizes is required';
  if (!outDims.every((d) => Number.isSafeInteger(d) && d >= 0)) return `the output shape [${outDims.join(', ')}] is not a valid shape`;
  return { outDims, scales, roi };
}

function inferResize(ctx: InferenceContextV1): void {
  const x = inputInfo(ctx, 0);
  if (isUnknownRank(x.shape)) {
    ctx.setOutput(0, { dtype: x.dtype, shape: x.shape });
    return;
  }
  const rank = x.shape.length;
  const axes = normalizeAxes(ctx.attrs.ints('axes', [...Array(rank).keys()]), rank);
  if (axes.some((a) => a < 0 || a >= rank)) throw new InferenceError(`Resize ${ctx.nodeName}: axes out of range for rank ${rank}`);
  const scalesT = ctx.inputValue(2);
  const sizesT = ctx.inputValue(3);
  const haveSizes = ctx.input(3) !== undefined && (sizesT === undefined || sizesT.data.length > 0);
  const known = x.shape.every((d) => typeof d === 'number' && d >= 0);
  const value = haveSizes ? sizesT : scalesT;
  if (!value) {
    // content unknown: resized axes are unknown, others kept
    ctx.setOutput(0, { dtype: x.dtype, shape: x.shape.map((d, i) => (axes.includes(i) ? -1 : d)) });
    return;
  }
  const numbers = toNumberArray(value);
  if (!known) {
    const shape: Shape[number][] = [...x.shape];
    const stretch = haveSizes && ctx.attrs.string('keep_aspect_ratio_policy', 'stretch') === 'stretch';
    for (let i = 0; i < axes.length; i++) shape[axes[i] as number] = stretch ? (numbers[i] ?? -1) : -1;
    ctx.setOutput(0, { dtype: x.dtype, shape });
    return;
  }
  const plan = planResize(
    x.shape as number[],
    { axes, policy: ctx.attrs.string('keep_aspect_ratio_policy', 'stretch') },
    haveSizes ? { sizes: numbers } : { scales: numbers },
  );
  if (typeof plan === 'string') throw new InferenceError(`Resize ${ctx.nodeName}: ${plan}`);
  ctx.setOutput(0, { dtype: x.dtype, shape: plan.outDims });
}

export const resizeOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'Resize',
    sinceVersion: 19,
    inputs: [param.required('X', 'T1'), param.optional('roi', 'T2'), param.optional('scales', 'float32'), param.optional('sizes', 'int64')],
    outputs: [param.required('Y', 'T1')],
    attributes: [
      { name: 'antialias', kind: 'int', default: { kind: 'int', value: 0 } },
      { name: 'axes', kind: 'ints' },
      { name: 'coordinate_transformation_mode', kind: 'string', default: { kind: 'string', value: 'half_pixel' } },
      { name: 'cubic_coeff_a', kind: 'float', default: { kind: 'float', value: -0.75 } },
      { name: 'exclude_outside', kind: 'int', default: { kind: 'int', value: 0 } },
      { name: 'extrapolation_value', kind: 'float', default: { kind: 'float', value: 0 } },
      { name: 'keep_aspect_ratio_policy', kind: 'string', default: { kind: 'string', value: 'stretch' } },
      { name: 'mode', kind: 'string', default: { kind: 'string', value: 'nearest' } },
      { name: 'nearest_mode', kind: 'string', default: { kind: 'string', value: 'round_prefer_floor' } },
    ],
    typeConstraints: [
      {
        name: 'T1',
        allowed: ['float32', 'float64', 'float16', 'bfloat16', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64'],
      },
      { name: 'T2', allowed: ['float32', 'float64', 'float16'] },
    ],
    infer: inferResize,
  }),
];

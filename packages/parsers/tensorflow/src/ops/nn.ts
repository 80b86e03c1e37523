import { type AttrValue, type Value, attr, toNumberArray } from '@tsge/metadef';
import type { ConvertContext } from '../import/context.js';
import { elementwise } from './elementwise.js';
import type { ConverterTable } from './registry.js';

// TF keeps NHWC; the canonical Conv/Pool/ConvTranspose are NCHW. Layout-sensitive ops are wrapped
// in Transposes (NHWC→NCHW before, NCHW→NHWC after); the compiler's transpose pass sinks and
// cancels the pairs between consecutive layers.
const TO_NCHW = [0, 3, 1, 2];
const TO_NHWC = [0, 2, 3, 1];
const HWIO_TO_OIHW = [3, 2, 0, 1];

function isNchw(ctx: ConvertContext): boolean {
  const format = ctx.attrs.string('data_format', 'NHWC');
  if (format !== 'NHWC' && format !== 'NCHW') throw ctx.problem(`data_format ${format} is not supported`);
  return format === 'NCHW';
}

/** Spatial entries of a 4-entry NHWC/NCHW attribute list (strides, dilations, ksize). */
function spatial(ctx: ConvertContext, values: readonly number[], nchw: boolean, name: string): number[] {
  if (values.length !== 4) throw ctx.problem(`${name} must have 4 entries`);
  return nchw ? [values[2] as number, values[3] as number] : [values[1] as number, values[2] as number];
}

function paddingAttrs(ctx: ConvertContext, nchw: boolean): Record<string, AttrValue> {
  const padding = ctx.attrs.string('padding');
  if (padding === 'SAME') return { auto_pad: attr.string('SAME_UPPER') };
  if (padding === 'VALID') return { auto_pad: attr.string('VALID') };
  if (padding === 'EXPLICIT') {
    const p = ctx.attrs.ints('explicit_paddings');
    if (p.length !== 8) throw ctx.problem('explicit_paddings must have 8 entries');
    const [h, w] = nchw ? [4, 6] : [2, 4];
    return { pads: attr.ints([p[h] as number, p[w] as number, p[h + 1] as number, p[w + 1] as number]) };
  }
  throw ctx.problem(`padding ${padding} is not supported`);
}

function layoutIn(ctx: ConvertContext, x: Value, nchw: boolean): Value {
  return nchw ? x : ctx.transpose(x, TO_NCHW);
}
function layoutOut(ctx: ConvertContext, y: Value, nchw: boolean, like: Value): Value {
  const out = nchw ? y : ctx.transpose(y, TO_NHWC);
  return ctx.note(out, { rank: 4, ...(ctx.dtypeOf(like) ? { dtype: ctx.dtypeOf(like) } : {}) });
}

function conv2d(ctx: ConvertContext, depthwise: boolean): Value {
  const nchw = isNchw(ctx);
  const x = ctx.input(0);
  let filter = ctx.input(1);
  const attrs: Record<string, AttrValue> = {
    strides: attr.ints(spatial(ctx, ctx.attrs.ints('strides'), nchw, 'strides')),
    dilations: attr.ints(spatial(ctx, ctx.attrs.ints('dilations', [1, 1, 1, 1]), nchw, 'dilations')),
    ...paddingAttrs(ctx, nchw),
  };
  if (depthwise) {
    // [H, W, C, M] → [C*M, 1, H, W] with one group per input channel
    const dims = ctx.constantOf(1)?.dims;
    if (dims?.length !== 4) throw ctx.problem('the depthwise filter must be a constant of rank 4');
    const [h, w, c, m] = dims as [number, number, number, number];
    filter = ctx.op1('Reshape', [filter, ctx.int64s([h, w, 1, c * m])]);
    attrs.group = attr.int(c);
  }
  const weight = ctx.transpose(filter, HWIO_TO_OIHW);
  const y = ctx.op1('Conv', [layoutIn(ctx, x, nchw), weight], attrs);
  return layoutOut(ctx, y, nchw, x);
}

function pool(ctx: ConvertContext, type: 'MaxPool' | 'AveragePool', ksize?: readonly number[], strides?: readonly number[]): Value {
  const nchw = isNchw(ctx);
  const x = ctx.input(0);
  const attrs: Record<string, AttrValue> = {
    kernel_shape: attr.ints(spatial(ctx, ksize ?? ctx.attrs.ints('ksize'), nchw, 'ksize')),
    strides: attr.ints(spatial(ctx, strides ?? ctx.attrs.ints('strides'), nchw, 'strides')),
    ...paddingAttrs(ctx, nchw),
  };
  if (type === 'AveragePool') attrs.count_include_pad = attr.int(0);
  return layoutOut(ctx, ctx.op1(type, [layoutIn(ctx, x, nchw)], attrs), nchw, x);
}

/** Inference batch norm as y = x * scale' + offset' on the channel axis (no layout change needed). */
function batchNorm(ctx: ConvertContext, x: Value, args: readonly Value[], epsilon: number, nchw: boolean): Value {
  const [scale, offset, mean, variance] = args as [Value, Value, Value, Value];
  const eps = ctx.scalar(epsilon, 'float32');
  const factor = ctx.op1('Mul', [scale, ctx.op1('Reciprocal', [ctx.op1('Sqrt', [ctx.op1('Add', [variance, eps])])])]);
  const shift = ctx.op1('Sub', [offset, ctx.op1('Mul', [mean, factor])]);
  const perChannel = (v: Value) => (nchw ? ctx.op1('Unsqueeze', [v, ctx.int64s([1, 2])]) : v);
  return elementwise(ctx, ctx.op1('Add', [ctx.op1('Mul', [x, perChannel(factor)]), perChannel(shift)]), [x]);
}

/** The activation list of the fused TF ops (_FusedConv2D, _FusedMatMul, FusedDepthwiseConv2dNative). */
function applyFused(ctx: ConvertContext, y0: Value, args: readonly Value[], nchw: boolean): Value {
  const ops = ctx.attrs.strings('fused_ops', []);
  let y = y0;
  let next = 0;
  const take = (n: number): Value[] => {
    const out = args.slice(next, next + n);
    if (out.length !== n) throw ctx.problem(`fused op needs ${n} more arguments`);
    next += n;
    return out;
  };
  for (const op of ops) {
    switch (op) {
      case 'BiasAdd': {
        const [b] = take(1) as [Value];
        y = ctx.op1('Add', [y, nchw ? ctx.op1('Unsqueeze', [b, ctx.int64s([1, 2])]) : b]);
        break;
      }
      case 'Add':
      case 'AddV2':
        y = ctx.op1('Add', [y, take(1)[0] as Value]);
        break;
      case 'FusedBatchNorm':
        y = batchNorm(ctx, y, take(4), ctx.attrs.float('epsilon', 1e-4), nchw);
        break;
      case 'Relu':
        y = ctx.op1('Relu', [y]);
        break;
      case 'Relu6':
        y = ctx.op1('Clip', [y, ctx.scalar(0, 'float32'), ctx.scalar(6, 'float32')]);
        break;
      case 'Elu':
        y = ctx.op1('Elu', [y]);
        break;
      case 'Selu':
        y = ctx.op1('Selu', [y]);
        break;
      case 'Sigmoid':
        y = ctx.op1('Sigmoid', [y]);
        break;
      case 'Tanh':
        y = ctx.op1('Tanh', [y]);
        break;
      case 'LeakyRelu':
        y = ctx.op1('LeakyRelu', [y], { alpha: attr.float(ctx.attrs.float('leakyrelu_alpha', 0.2)) });
        break;
      case 'Prelu': {
        const [alpha] = take(1) as [Value];
        y = ctx.op1('PRelu', [y, nchw ? ctx.op1('Unsqueeze', [alpha, ctx.int64s([1, 2])]) : alpha]);
        break;
      }
      default:
        throw ctx.problem(`fused op ${op} is not supported`);
    }
  }
  return ctx.note(y, { rank: ctx.rankOf(y0) ?? 4, ...(ctx.dtypeOf(y0) ? { dtype: ctx.dtypeOf(y0) } : {}) });
}

function restArgs(ctx: ConvertContext, from: number): Value[] {
  return Array.from({ length: ctx.inputCount - from }, (_, i) => ctx.input(from + i));
}

function matmul(ctx: ConvertContext, a: Value, b: Value, transposeA: boolean, transposeB: boolean): Value {
  const y =
    transposeA || transposeB
      ? ctx.op1('Gemm', [a, b], { transA: attr.int(transposeA ? 1 : 0), transB: attr.int(transposeB ? 1 : 0) })
      : ctx.op1('MatMul', [a, b]);
  return ctx.note(y, { rank: 2, ...(ctx.dtypeOf(a) ? { dtype: ctx.dtypeOf(a) } : {}) });
}

function batchMatmul(ctx: ConvertContext): Value {
  let a = ctx.input(0);
  let b = ctx.input(1);
  const swap = (v: Value): Value => {
    const rank = ctx.rankOf(v);
    // rank unknown at parse time: swap the last two axes whatever the rank
    if (rank === undefined) return ctx.op1('Einsum', [v], { equation: attr.string('...ij->...ji') });
    const perm = Array.from({ length: rank }, (_, i) => i);
    perm[rank - 1] = rank - 2;
    perm[rank - 2] = rank - 1;
    return ctx.transpose(v, perm);
  };
  if (ctx.attrs.bool('adj_x', false)) a = swap(a);
  if (ctx.attrs.bool('adj_y', false)) b = swap(b);
  const ra = ctx.rankOf(a);
  const rb = ctx.rankOf(b);
  return ctx.note(ctx.op1('MatMul', [a, b]), ra !== undefined && rb !== undefined ? { rank: Math.max(ra, rb) } : {});
}

function resize(ctx: ConvertContext, mode: 'linear' | 'nearest'): Value {
  const x = ctx.input(0);
  const alignCorners = ctx.attrs.bool('align_corners', false);
  const halfPixel = ctx.attrs.bool('half_pixel_centers', false);
  const attrs: Record<string, AttrValue> = {
    mode: attr.string(mode),
    axes: attr.ints([1, 2]),
    coordinate_transformation_mode: attr.string(alignCorners ? 'align_corners' : halfPixel ? 'half_pixel' : 'asymmetric'),
  };
  // TF nearest: round with align_corners, floor((o + 0.5) / scale) with half-pixel centres, else floor(o / scale)
  if (mode === 'nearest') attrs.nearest_mode = attr.string(alignCorners || halfPixel ? 'round_prefer_ceil' : 'floor');
  const y = ctx.op1('Resize', [x, undefined, undefined, ctx.toInt64(ctx.input(1))], attrs);
  return ctx.note(y, { rank: 4, ...(ctx.dtypeOf(x) ? { dtype: ctx.dtypeOf(x) } : {}) });
}

/** Conv2DBackpropInput as ConvTranspose with the forward conv's pads, computed from input_sizes. */
function convBackpropInput(ctx: ConvertContext): Value {
  const nchw = isNchw(ctx);
  const known = ctx.constantOf(0);
  const dims = ctx.constantOf(1)?.dims;
  if (dims?.length !== 4) throw ctx.problem('the filter must be a constant of rank 4');
  const strides = spatial(ctx, ctx.attrs.ints('strides'), nchw, 'strides');
  const dilations = spatial(ctx, ctx.attrs.ints('dilations', [1, 1, 1, 1]), nchw, 'dilations');
  const padding = ctx.attrs.string('padding');
  const kernel = [dims[0] as number, dims[1] as number];
  if (!known) return convBackpropInputDynamic(ctx, nchw, kernel, strides, dilations, padding);
  const sizes = toNumberArray(known);
  if (sizes.length !== 4) throw ctx.problem('input_sizes must have 4 entries');
  const out = nchw ? [sizes[2] as number, sizes[3] as number] : [sizes[1] as number, sizes[2] as number];
  const begin: number[] = [];
  const end: number[] = [];
  const outputPadding: number[] = [];
  for (let i = 0; i < 2; i++) {
    const size = out[i] as number;
    const s = strides[i] as number;
    const k = ((kernel[i] as number) - 1) * (dilations[i] as number) + 1;
    let pb = 0;
    let pe = 0;
    let forward: number;
    if (padding === 'SAME') {
      forward = Math.ceil(size / s);
      const total = Math.max((forward - 1) * s + k - size, 0);
      pb = Math.floor(total / 2);
      pe = total - pb;
    } else if (padding === 'VALID') forward = Math.floor((size - k) / s) + 1;
    else if (padding === 'EXPLICIT') {
      const p = ctx.attrs.ints('explicit_paddings');
      const at = (nchw ? 4 : 2) + 2 * i;
      pb = p[at] as number;
      pe = p[at + 1] as number;
      forward = Math.floor((size + pb + pe - k) / s) + 1;
    } else throw ctx.problem(`padding ${padding} is not supported`);
    begin.push(pb);
    end.push(pe);
    outputPadding.push(size - ((forward - 1) * s + k - pb - pe));
  }
  const weight = ctx.transpose(ctx.input(1), HWIO_TO_OIHW);
  const dy = ctx.input(2);
  const y = ctx.op1('ConvTranspose', [layoutIn(ctx, dy, nchw), weight], {
    strides: attr.ints(strides),
    dilations: attr.ints(dilations),
    pads: attr.ints([...begin, ...end]),
    output_padding: attr.ints(outputPadding),
  });
  return layoutOut(ctx, y, nchw, dy);
}

/**
 * input_sizes computed at run time (Keras Conv2DTranspose): the output size is then the one Keras
 * computes, in * stride for SAME and (in - 1) * stride + k for VALID, for which the pads do not
 * depend on the input size.
 */
function convBackpropInputDynamic(
  ctx: ConvertContext,
  nchw: boolean,
  kernel: readonly number[],
  strides: readonly number[],
  dilations: readonly number[],
  padding: string,
): Value {
  const begin: number[] = [];
  const end: number[] = [];
  const outputPadding: number[] = [];
  for (let i = 0; i < 2; i++) {
    const s = strides[i] as number;
    const k = ((kernel[i] as number) - 1) * (dilations[i] as number) + 1;
    if (padding === 'SAME') {
      const total = Math.max(k - s, 0);
      begin.push(Math.floor(total / 2));
      end.push(total - Math.floor(total / 2));
      outputPadding.push(Math.max(s - k, 0));
    } else if (padding === 'VALID') {
      begin.push(0);
      end.push(0);
      outputPadding.push(0);
    } else throw ctx.problem(`padding ${padding} needs constant input_sizes`);
  }
  const weight = ctx.transpose(ctx.input(1), HWIO_TO_OIHW);
  const dy = ctx.input(2);
  const y = ctx.op1('ConvTranspose', [layoutIn(ctx, dy, nchw), weight], {
    strides: attr.ints(strides),
    dilations: attr.ints(dilations),
    pads: attr.ints([...begin, ...end]),
    output_padding: attr.ints(outputPadding),
  });
  return layoutOut(ctx, y, nchw, dy);
}

function depthSpace(ctx: ConvertContext, type: 'DepthToSpace' | 'SpaceToDepth'): Value {
  const nchw = isNchw(ctx);
  const x = ctx.input(0);
  const attrs: Record<string, AttrValue> = { blocksize: attr.int(ctx.attrs.int('block_size')) };
  if (type === 'DepthToSpace') attrs.mode = attr.string('DCR');
  return layoutOut(ctx, ctx.op1(type, [layoutIn(ctx, x, nchw)], attrs), nchw, x);
}

function int64Slice(ctx: ConvertContext, shape: Value, from: number, to: number): Value {
  return ctx.op1('Slice', [shape, ctx.int64s([from]), ctx.int64s([to]), ctx.int64s([0])]);
}

const ALLOW_ZERO = { allowzero: attr.int(1) };

/** SpaceToBatchND for NHWC with two spatial dims: pad, split blocks off H and W, move them to batch. */
function spaceToBatch(ctx: ConvertContext): Value {
  const x = ctx.input(0);
  const block = ctx.constNumbers(1, 'block_shape');
  if (block.length !== 2) throw ctx.problem('only two spatial dims are supported');
  const [b0, b1] = block as [number, number];
  const padded = ctx.op1('Pad', [x, spatialPairs(ctx, 2, 'paddings', [0, 1, 3, 0, 0, 2, 4, 0])]);
  const shape = ctx.op1('Shape', [padded]);
  const n = int64Slice(ctx, shape, 0, 1);
  const h = ctx.op1('Div', [int64Slice(ctx, shape, 1, 2), ctx.int64s([b0])]);
  const w = ctx.op1('Div', [int64Slice(ctx, shape, 2, 3), ctx.int64s([b1])]);
  const c = int64Slice(ctx, shape, 3, 4);
  // computed shapes may hold 0 (an empty map), which ONNX Reshape would copy without allowzero
  const split = ctx.op1(
    'Reshape',
    [padded, ctx.op1('Concat', [n, h, ctx.int64s([b0]), w, ctx.int64s([b1]), c], { axis: attr.int(0) })],
    ALLOW_ZERO,
  );
  const moved = ctx.transpose(split, [2, 4, 0, 1, 3, 5]);
  const batch = ctx.op1('Mul', [n, ctx.int64s([b0 * b1])]);
  const y = ctx.op1('Reshape', [moved, ctx.op1('Concat', [batch, h, w, c], { axis: attr.int(0) })], ALLOW_ZERO);
  return ctx.note(y, { rank: 4 });
}

/**
 * Entries of a [2, 2] paddings/crops input (`[[top, bottom], [left, right]]`) as int64 picked by
 * `picks` from [0, top, bottom, left, right]: constants when the input is one, else computed at
 * run time (TF computes them from dynamic shapes, e.g. behind a cond).
 */
function spatialPairs(ctx: ConvertContext, input: number, what: string, picks: readonly number[]): Value {
  const constant = ctx.constantOf(input);
  if (constant) {
    const values = ctx.constNumbers(input, what);
    if (values.length !== 4) throw ctx.problem(`${what} must be [2, 2] (two spatial dims)`);
    const table = [0, ...values];
    return ctx.int64s(picks.map((p) => table[p] as number));
  }
  const rank = ctx.rankOf(ctx.input(input));
  if (rank !== undefined && rank !== 2) throw ctx.problem(`${what} must be [2, 2] (two spatial dims)`);
  const flat = ctx.op1('Reshape', [ctx.toInt64(ctx.input(input)), ctx.int64s([4])]);
  const table = ctx.op1('Concat', [ctx.int64s([0]), flat], { axis: attr.int(0) });
  return ctx.op1('Gather', [table, ctx.int64s([...picks])], { axis: attr.int(0) });
}

function batchToSpace(ctx: ConvertContext): Value {
  const x = ctx.input(0);
  const block = ctx.constNumbers(1, 'block_shape');
  if (block.length !== 2) throw ctx.problem('only two spatial dims are supported');
  const [b0, b1] = block as [number, number];
  const shape = ctx.op1('Shape', [x]);
  const n = ctx.op1('Div', [int64Slice(ctx, shape, 0, 1), ctx.int64s([b0 * b1])]);
  const h = int64Slice(ctx, shape, 1, 2);
  const w = int64Slice(ctx, shape, 2, 3);
  const c = int64Slice(ctx, shape, 3, 4);
  const split = ctx.op1('Reshape', [x, ctx.op1('Concat', [ctx.int64s([b0, b1]), n, h, w, c], { axis: attr.int(0) })], ALLOW_ZERO);
  const moved = ctx.transpose(split, [2, 3, 0, 4, 1, 5]);
  const hb = ctx.op1('Mul', [h, ctx.int64s([b0])]);
  const wb = ctx.op1('Mul', [w, ctx.int64s([b1])]);
  const merged = ctx.op1('Reshape', [moved, ctx.op1('Concat', [n, hb, wb, c], { axis: attr.int(0) })], ALLOW_ZERO);
  const ends = ctx.op1('Sub', [ctx.op1('Concat', [hb, wb], { axis: attr.int(0) }), spatialPairs(ctx, 2, 'crops', [2, 4])]);
  const y = ctx.op1('Slice', [merged, spatialPairs(ctx, 2, 'crops', [1, 3]), ends, ctx.int64s([1, 2])]);
  return ctx.note(y, { rank: 4 });
}

export const nnConverters: ConverterTable = {
  Conv2D: (ctx) => [conv2d(ctx, false)],
  DepthwiseConv2dNative: (ctx) => [conv2d(ctx, true)],
  _FusedConv2D: (ctx) => [applyFused(ctx, conv2d(ctx, false), restArgs(ctx, 2), isNchw(ctx))],
  FusedDepthwiseConv2dNative: (ctx) => [applyFused(ctx, conv2d(ctx, true), restArgs(ctx, 2), isNchw(ctx))],
  Conv2DBackpropInput: (ctx) => [convBackpropInput(ctx)],
  MaxPool: (ctx) => [pool(ctx, 'MaxPool')],
  AvgPool: (ctx) => [pool(ctx, 'AveragePool')],
  MaxPoolV2: (ctx) => [pool(ctx, 'MaxPool', ctx.constNumbers(1, 'ksize'), ctx.constNumbers(2, 'strides'))],
  FusedBatchNorm: (ctx) => fusedBatchNorm(ctx),
  FusedBatchNormV2: (ctx) => fusedBatchNorm(ctx),
  FusedBatchNormV3: (ctx) => fusedBatchNorm(ctx),
  MatMul: (ctx) => [matmul(ctx, ctx.input(0), ctx.input(1), ctx.attrs.bool('transpose_a', false), ctx.attrs.bool('transpose_b', false))],
  _FusedMatMul: (ctx) => {
    const y = matmul(ctx, ctx.input(0), ctx.input(1), ctx.attrs.bool('transpose_a', false), ctx.attrs.bool('transpose_b', false));
    return [applyFused(ctx, y, restArgs(ctx, 2), false)];
  },
  BatchMatMul: (ctx) => [batchMatmul(ctx)],
  BatchMatMulV2: (ctx) => [batchMatmul(ctx)],
  BatchMatMulV3: (ctx) => [batchMatmul(ctx)],
  ResizeBilinear: (ctx) => [resize(ctx, 'linear')],
  ResizeNearestNeighbor: (ctx) => [resize(ctx, 'nearest')],
  DepthToSpace: (ctx) => [depthSpace(ctx, 'DepthToSpace')],
  SpaceToDepth: (ctx) => [depthSpace(ctx, 'SpaceToDepth')],
  SpaceToBatchND: (ctx) => [spaceToBatch(ctx)],
  BatchToSpaceND: (ctx) => [batchToSpace(ctx)],
  Prelu: (ctx) => [elementwise(ctx, ctx.op1('PRelu', [ctx.input(0), ctx.input(1)]), [ctx.input(0)])],
  LRN: (ctx) => {
    const x = ctx.input(0);
    const radius = ctx.attrs.int('depth_radius', 5);
    const size = 2 * radius + 1;
    // TF: alpha multiplies the plain sum; ONNX divides alpha by size
    const y = ctx.op1('LRN', [ctx.transpose(x, TO_NCHW)], {
      size: attr.int(size),
      alpha: attr.float(ctx.attrs.float('alpha', 1) * size),
      beta: attr.float(ctx.attrs.float('beta', 0.5)),
      bias: attr.float(ctx.attrs.float('bias', 1)),
    });
    return [layoutOut(ctx, y, false, x)];
  },
};

function fusedBatchNorm(ctx: ConvertContext): Value[] {
  const nchw = isNchw(ctx);
  const x = ctx.input(0);
  const args = [1, 2, 3, 4].map((i) => ctx.input(i));
  const y = ctx.note(batchNorm(ctx, x, args, ctx.attrs.float('epsilon', 1e-4), nchw), { rank: 4 });
  // batch statistics outputs (training only) pass the given moments through
  return [y, args[2] as Value, args[3] as Value, args[2] as Value, args[3] as Value, args[2] as Value];
}

import { attr } from '@tsge/metadef';
import { type ImportContext, TO_NCHW, permuteShape } from '../context.js';
import { normAxis, options } from '../helpers.js';

/**
 * MEAN, SUM, REDUCE_MAX/MIN/PROD with constant axes. A NCHW input whose reduced axes are
 * exactly H and W (global pooling) is reduced in NCHW; the result without kept dims is the same
 * [N, C] in both layouts.
 */
export function reduce(type: 'ReduceMean' | 'ReduceSum' | 'ReduceMax' | 'ReduceMin' | 'ReduceProd') {
  return (ctx: ImportContext): void => {
    const x = ctx.requireInput(0);
    const out = ctx.outputTensor();
    const rank = x.shape.length;
    const axes = [...new Set(ctx.constInts(ctx.requireInput(1), 'axes').map((a) => normAxis(ctx, a, rank)))].sort();
    const keepDims = options(ctx).bool(0);
    const spatial = rank === 4 && axes.length === 2 && axes[0] === 1 && axes[1] === 2;
    const layout = spatial && ctx.hasLayout(x, 'nchw') ? 'nchw' : 'native';
    const onnxAxes = layout === 'nchw' ? [2, 3] : axes;
    const shape = layout === 'nchw' && keepDims ? permuteShape(ctx.shapeOf(out) as number[], TO_NCHW) : ctx.shapeOf(out);
    const outLayout = layout === 'nchw' && keepDims ? 'nchw' : 'native';
    const integer =
      !ctx.isQuantized(x) &&
      ctx.dtypeOf(x) !== 'float32' &&
      (type === 'ReduceMax' || type === 'ReduceMin' || type === 'ReduceSum' || type === 'ReduceProd');
    const input = integer ? ctx.raw(x, layout) : ctx.float(x, layout);
    const y = ctx.node(type, [input, ctx.int64s('axes', onnxAxes)], integer ? ctx.dtypeOf(x) : 'float32', shape, {
      keepdims: attr.int(keepDims ? 1 : 0),
    });
    if (integer) ctx.set(out.index, y, outLayout);
    else ctx.setFloat(out, y, outLayout);
  };
}

/** SOFTMAX (beta scales the logits) and LOG_SOFTMAX over the last axis. */
export function softmax(type: 'Softmax' | 'LogSoftmax') {
  return (ctx: ImportContext): void => {
    const x = ctx.requireInput(0);
    const out = ctx.outputTensor();
    const shape = ctx.shapeOf(out);
    let input = ctx.float(x);
    const beta = type === 'Softmax' ? options(ctx).float32(0) : 1;
    if (beta !== 1) input = ctx.node('Mul', [input, ctx.constant('beta', Float32Array.of(beta), [], 'float32')], 'float32', ctx.shapeOf(x));
    ctx.setFloat(out, ctx.node(type, [input], 'float32', shape, { axis: attr.int(-1) }));
  };
}

/** L2_NORMALIZATION over the last axis: x / sqrt(max(sum(x²), 1e-6)) as TFLite computes it. */
export function l2Normalization(ctx: ImportContext): void {
  const x = ctx.requireInput(0);
  const out = ctx.outputTensor();
  const shape = ctx.shapeOf(x);
  const v = ctx.float(x);
  const reducedShape = (shape as number[]).map((d, i) => (i === shape.length - 1 ? 1 : d));
  const sum = ctx.node('ReduceSumSquare', [v, ctx.int64s('axes', [-1])], 'float32', reducedShape, { keepdims: attr.int(1) });
  const floor = ctx.node('Max', [sum, ctx.constant('epsilon', Float32Array.of(1e-6), [], 'float32')], 'float32', reducedShape);
  const norm = ctx.node('Sqrt', [floor], 'float32', reducedShape);
  ctx.setFloat(out, ctx.node('Div', [v, norm], 'float32', shape));
}

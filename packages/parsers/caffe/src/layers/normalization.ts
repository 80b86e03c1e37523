import { attr } from '@tsge/metadef';
import type { BlobRef, LayerContext } from '../convert/context.js';
import { caffe } from '../generated/caffe.js';
import { type LayerConverter, broadcastDims, canonicalAxis, num } from './shared.js';

/**
 * BatchNorm: blobs mean, variance and the moving-average scale factor; Caffe divides the first two
 * by the factor (0 means 0). NVIDIA Caffe's `scale_bias` adds scale and bias blobs.
 */
export const batchNormLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.batch_norm_param ?? {};
  const x = ctx.input(0);
  if (x.shape.length < 2) ctx.fail('needs a blob with a channel axis');
  const channels = x.shape[1] as number;
  const mean = ctx.weight(0, [channels], undefined);
  const variance = ctx.weight(1, [channels], undefined, { type: 'constant', value: 1 });
  const factorBlob = ctx.weight(2, [1], undefined, { type: 'constant', value: 1 });
  const factor = factorBlob[0] === 0 ? 0 : 1 / (factorBlob[0] as number);
  for (let c = 0; c < channels; c++) {
    mean[c] = (mean[c] as number) * factor;
    variance[c] = (variance[c] as number) * factor;
  }
  const scale = p.scale_bias ? ctx.weight(3, [channels], undefined, { type: 'constant', value: 1 }) : new Float32Array(channels).fill(1);
  const bias = p.scale_bias ? ctx.weight(4, [channels], undefined) : new Float32Array(channels);
  const value = ctx.op(
    'BatchNormalization',
    [
      x.value,
      ctx.constant(scale, [channels], 'scale'),
      ctx.constant(bias, [channels], 'bias'),
      ctx.constant(mean, [channels], 'mean'),
      ctx.constant(variance, [channels], 'var'),
    ],
    x.shape,
    { epsilon: attr.float(p.eps ?? 1e-5) },
  );
  return [{ value, shape: x.shape }];
};

/** Scale and Bias: a learned blob (or a second bottom) broadcast from `axis`; Scale may add a bias. */
function scaleOrBias(ctx: LayerContext, kind: 'Mul' | 'Add'): BlobRef[] {
  const p = (kind === 'Mul' ? ctx.layer.params.scale_param : ctx.layer.params.bias_param) ?? {};
  const x = ctx.input(0);
  const rank = x.shape.length;
  const axis = canonicalAxis(ctx, num(p.axis, 1), Math.max(rank, 1));
  let factor: BlobRef;
  let blobIndex = 0;
  if (ctx.inputs.length > 1) {
    const second = ctx.input(1);
    factor = second;
  } else {
    const numAxes = num(p.num_axes, 1);
    if (numAxes < -1) ctx.fail(`num_axes ${numAxes} must be -1 or more`);
    const dims = numAxes === -1 ? x.shape.slice(axis) : x.shape.slice(axis, axis + numAxes);
    if (numAxes > 0 && axis + numAxes > rank) ctx.fail(`axis ${axis} + num_axes ${numAxes} exceeds rank ${rank}`);
    const filler = p.filler ?? undefined;
    const data = ctx.weight(0, dims, filler, kind === 'Mul' ? { type: 'constant', value: 1 } : {});
    factor = { value: ctx.constant(data, dims, kind === 'Mul' ? 'scale' : 'bias'), shape: dims };
    blobIndex = 1;
  }
  const target = broadcastDims(factor.shape, axis, rank);
  for (let i = 0; i < factor.shape.length; i++) {
    if (factor.shape[i] !== x.shape[axis + i])
      ctx.fail(
        `the ${kind === 'Mul' ? 'scale' : 'bias'} shape [${factor.shape.join(',')}] does not match the input [${x.shape.join(',')}] from axis ${axis}`,
      );
  }
  const aligned =
    factor.shape.length === 0 || target.length === factor.shape.length
      ? factor.value
      : ctx.op('Reshape', [factor.value, ctx.ints(target, 'shape')], target);
  let value = ctx.op(kind, [x.value, aligned], x.shape);
  const scaleParam = ctx.layer.params.scale_param;
  if (kind === 'Mul' && scaleParam?.bias_term) {
    const bias = ctx.weight(blobIndex, factor.shape, scaleParam.bias_filler ?? undefined);
    const biasDims = factor.shape.length === 0 ? [] : target;
    value = ctx.op('Add', [value, ctx.constant(bias, biasDims, 'bias')], x.shape);
  }
  return [{ value, shape: x.shape }];
}

export const scaleLayer: LayerConverter = (ctx) => scaleOrBias(ctx, 'Mul');
export const biasLayer: LayerConverter = (ctx) => scaleOrBias(ctx, 'Add');

/**
 * LRN across channels is ONNX LRN; within a channel it is x * (1 + alpha * avg(x^2))^-beta over a
 * local_size square (Caffe builds it from Power, Pooling and Eltwise layers, with shift 1).
 */
export const lrnLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.lrn_param ?? {};
  const x = ctx.input(0);
  const size = num(p.local_size, 5);
  if (size % 2 === 0 || size <= 0) ctx.fail(`local_size ${size} must be odd and positive`);
  const alpha = p.alpha ?? 1;
  const beta = p.beta ?? 0.75;
  if ((p.norm_region ?? 0) === caffe.LRNParameter.NormRegion.ACROSS_CHANNELS) {
    const value = ctx.op('LRN', [x.value], x.shape, {
      size: attr.int(size),
      alpha: attr.float(alpha),
      beta: attr.float(beta),
      bias: attr.float(p.k ?? 1),
    });
    return [{ value, shape: x.shape }];
  }
  if (x.shape.length !== 4) ctx.fail('WITHIN_CHANNEL needs a 4-D blob');
  const pad = (size - 1) / 2;
  const squared = ctx.op('Mul', [x.value, x.value], x.shape);
  const pooled = ctx.op('AveragePool', [squared], x.shape, {
    kernel_shape: attr.ints([size, size]),
    pads: attr.ints([pad, pad, pad, pad]),
    count_include_pad: attr.int(1),
  });
  const scaled = ctx.op('Add', [ctx.op('Mul', [pooled, ctx.scalar(alpha, 'alpha')], x.shape), ctx.scalar(1, 'one')], x.shape);
  const factor = ctx.op('Pow', [scaled, ctx.scalar(-beta, 'neg_beta')], x.shape);
  return [{ value: ctx.op('Mul', [x.value, factor], x.shape), shape: x.shape }];
};

/** SSD's Normalize: x / sqrt(sum x^2 + eps) over C,H,W (across_spatial) or over C, times a learned scale. */
export const normalizeLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.norm_param ?? {};
  const x = ctx.input(0);
  if (x.shape.length < 2) ctx.fail('needs a blob with a channel axis');
  const rank = x.shape.length;
  const acrossSpatial = p.across_spatial ?? true;
  const axes = acrossSpatial ? Array.from({ length: rank - 1 }, (_, i) => i + 1) : [1];
  const reducedShape = x.shape.map((d, i) => (axes.includes(i) ? 1 : d));
  const sum = ctx.op('ReduceSumSquare', [x.value, ctx.ints(axes, 'axes')], reducedShape, { keepdims: attr.int(1) });
  const norm = ctx.op('Sqrt', [ctx.op('Add', [sum, ctx.scalar(p.eps ?? 1e-10, 'eps')], reducedShape)], reducedShape);
  const normalized = ctx.op('Div', [x.value, norm], x.shape);
  const channels = x.shape[1] as number;
  const shared = p.channel_shared ?? true;
  const scale = ctx.weight(0, [shared ? 1 : channels], p.scale_filler ?? undefined, { type: 'constant', value: 1 });
  const dims = shared ? [] : broadcastDims([channels], 1, rank);
  return [{ value: ctx.op('Mul', [normalized, ctx.constant(scale, dims, 'scale')], x.shape), shape: x.shape }];
};

/** MVN: subtract the mean (and divide by the standard deviation + eps) over H,W or C,H,W. */
export const mvnLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.mvn_param ?? {};
  const x = ctx.input(0);
  const rank = x.shape.length;
  const first = p.across_channels ? 1 : 2;
  if (rank <= first) ctx.fail(`needs a blob of rank above ${first}`);
  const axes = Array.from({ length: rank - first }, (_, i) => i + first);
  const reduced = x.shape.map((d, i) => (i >= first ? 1 : d));
  const mean = ctx.op('ReduceMean', [x.value, ctx.ints(axes, 'axes')], reduced, { keepdims: attr.int(1) });
  const centered = ctx.op('Sub', [x.value, mean], x.shape);
  if (!(p.normalize_variance ?? true)) return [{ value: centered, shape: x.shape }];
  const variance = ctx.op('ReduceMean', [ctx.op('Mul', [centered, centered], x.shape), ctx.ints(axes, 'axes2')], reduced, {
    keepdims: attr.int(1),
  });
  const std = ctx.op('Add', [ctx.op('Sqrt', [variance], reduced), ctx.scalar(p.eps ?? 1e-9, 'eps')], reduced);
  return [{ value: ctx.op('Div', [centered, std], x.shape), shape: x.shape }];
};

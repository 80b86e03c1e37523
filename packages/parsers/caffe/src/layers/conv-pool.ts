import { attr } from '@tsge/metadef';
import type { LayerContext } from '../convert/context.js';
import { caffe } from '../generated/caffe.js';
import { type LayerConverter, canonicalAxis, has, num, product } from './shared.js';

/** Kernel, stride, pad and dilation per spatial axis, from any of Caffe's spellings. */
interface Spatial {
  readonly kernel: number[];
  readonly stride: number[];
  readonly pad: number[];
  readonly dilation: number[];
}

function perAxis(ctx: LayerContext, name: string, values: readonly number[], spatial: number, fallback: number): number[] {
  if (values.length === 0) return new Array(spatial).fill(fallback);
  if (values.length === 1) return new Array(spatial).fill(values[0]);
  if (values.length !== spatial) ctx.fail(`${name} has ${values.length} values for ${spatial} spatial axes`);
  return [...values];
}

/** Caffe's rules: `*_h`/`*_w` (2-D only) override the repeated field, which gives one value or one per axis. */
function spatialParams(
  ctx: LayerContext,
  p: caffe.IConvolutionParameter | caffe.IPoolingParameter,
  spatial: number,
  withDilation: boolean,
): Spatial {
  const pair = (name: string): number[] | undefined => {
    const hName = `${name}_h`;
    const wName = `${name}_w`;
    if (!has(p, hName) && !has(p, wName)) return undefined;
    if (spatial !== 2) ctx.fail(`${hName}/${wName} apply to 2-D blobs only`);
    const record = p as Record<string, unknown>;
    return [num(record[hName], 0), num(record[wName], 0)];
  };
  const list = (name: string): number[] => ((p as Record<string, unknown>)[name] as number[] | undefined)?.map(Number) ?? [];
  const kernel = pair('kernel') ?? perAxis(ctx, 'kernel_size', list('kernel_size'), spatial, 0);
  const stride = pair('stride') ?? perAxis(ctx, 'stride', list('stride'), spatial, 1);
  const pad = pair('pad') ?? perAxis(ctx, 'pad', list('pad'), spatial, 0);
  const dilation = withDilation ? perAxis(ctx, 'dilation', list('dilation'), spatial, 1) : new Array(spatial).fill(1);
  return { kernel, stride, pad, dilation };
}

function convolution(ctx: LayerContext, transposed: boolean) {
  const p = ctx.layer.params.convolution_param ?? {};
  const x = ctx.input(0);
  const rank = x.shape.length;
  const axis = canonicalAxis(ctx, num(p.axis, 1), rank);
  if (axis !== 1) ctx.fail(`channel axis ${axis} is not supported (only 1)`);
  const spatial = rank - 2;
  if (spatial < 1) ctx.fail(`needs a blob with spatial axes, got shape [${x.shape.join(',')}]`);
  const s = spatialParams(ctx, p, spatial, true);
  if (s.kernel.some((k) => k <= 0)) ctx.fail('kernel size must be positive');
  if (s.stride.some((v) => v <= 0) || s.dilation.some((v) => v <= 0)) ctx.fail('stride and dilation must be positive');
  const group = num(p.group, 1);
  const outputs = num(p.num_output, 0);
  const channels = x.shape[1] as number;
  if (outputs <= 0) ctx.fail('num_output must be positive');
  if (group <= 0 || channels % group !== 0 || outputs % group !== 0)
    ctx.fail(`group ${group} must divide the ${channels} input and ${outputs} output channels`);
  const weightDims = transposed ? [channels, outputs / group, ...s.kernel] : [outputs, channels / group, ...s.kernel];
  const weight = ctx.weight(0, weightDims, p.weight_filler ?? undefined);
  const biasTerm = p.bias_term ?? true;
  const bias = biasTerm ? ctx.weight(1, [outputs], p.bias_filler ?? undefined) : undefined;
  const outSpatial = x.shape.slice(2).map((size, i) => {
    const k = (s.dilation[i] as number) * ((s.kernel[i] as number) - 1) + 1;
    const stride = s.stride[i] as number;
    const pad = s.pad[i] as number;
    return transposed ? stride * (size - 1) + k - 2 * pad : Math.floor((size + 2 * pad - k) / stride) + 1;
  });
  if (outSpatial.some((d) => d <= 0)) ctx.fail(`the output would be empty for input [${x.shape.join(',')}]`);
  const shape = [x.shape[0] as number, outputs, ...outSpatial];
  const inputs = [x.value, ctx.constant(weight, weightDims, 'weight')];
  if (bias) inputs.push(ctx.constant(bias, [outputs], 'bias'));
  const value = ctx.op(transposed ? 'ConvTranspose' : 'Conv', inputs, shape, {
    kernel_shape: attr.ints(s.kernel),
    strides: attr.ints(s.stride),
    pads: attr.ints([...s.pad, ...s.pad]),
    dilations: attr.ints(s.dilation),
    group: attr.int(group),
  });
  return [{ value, shape }];
}

export const convolutionLayer: LayerConverter = (ctx) => convolution(ctx, false);
export const deconvolutionLayer: LayerConverter = (ctx) => convolution(ctx, true);

/**
 * Pooling with Caffe's output size: ceil rounding (floor with OpenCV's `ceil_mode: false`), the
 * last window starting inside the image or its leading pad. The size is reached with explicit end
 * padding in floor mode, so every runtime agrees. AVE divides by the window clipped to the padded
 * blob, which is average pooling without counting padding over an explicitly zero-padded input.
 */
export const poolingLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.pooling_param ?? {};
  const x = ctx.input(0);
  if (x.shape.length !== 4) ctx.fail(`needs a 4-D blob, got [${x.shape.join(',')}]`);
  const method = p.pool ?? caffe.PoolingParameter.PoolMethod.MAX;
  if (method === caffe.PoolingParameter.PoolMethod.STOCHASTIC) ctx.fail('STOCHASTIC pooling is not supported');
  const isMax = method === caffe.PoolingParameter.PoolMethod.MAX;
  if (ctx.layer.tops.length > 1) ctx.fail('the max-pooling mask top is not supported');
  const [n, c, h, w] = x.shape as [number, number, number, number];
  if (p.global_pooling) {
    if (has(p, 'kernel_size') && (p.kernel_size?.length ?? 0) > 0) ctx.fail('global_pooling cannot be combined with kernel_size');
    const shape = [n, c, 1, 1];
    return [{ value: ctx.op(isMax ? 'GlobalMaxPool' : 'GlobalAveragePool', [x.value], shape), shape }];
  }
  const s = spatialParams(ctx, p, 2, false);
  if (s.kernel.some((k) => k <= 0)) ctx.fail('kernel size must be positive');
  if (s.stride.some((v) => v <= 0)) ctx.fail('stride must be positive');
  if (s.pad.some((v, i) => v >= (s.kernel[i] as number))) ctx.fail('pad must be smaller than the kernel');
  const ceil = p.ceil_mode ?? true;
  const sizes = [h, w];
  const out = sizes.map((size, i) => {
    const k = s.kernel[i] as number;
    const stride = s.stride[i] as number;
    const pad = s.pad[i] as number;
    const span = size + 2 * pad - k;
    let o = (ceil ? Math.ceil(span / stride) : Math.floor(span / stride)) + 1;
    if (pad > 0 && (o - 1) * stride >= size + pad) o--;
    return o;
  });
  if (out.some((o) => o <= 0)) ctx.fail(`the output would be empty for input [${x.shape.join(',')}]`);
  // end padding that makes floor rounding give Caffe's size
  const endPad = out.map(
    (o, i) => (o - 1) * (s.stride[i] as number) + (s.kernel[i] as number) - (sizes[i] as number) - (s.pad[i] as number),
  );
  const shape = [n, c, ...out];
  const common = { kernel_shape: attr.ints(s.kernel), strides: attr.ints(s.stride), ceil_mode: attr.int(0) };
  if (isMax) {
    const value = ctx.op('MaxPool', [x.value], shape, {
      ...common,
      pads: attr.ints([s.pad[0] as number, s.pad[1] as number, ...endPad.map((v) => Math.max(v, 0))]),
    });
    return [{ value, shape }];
  }
  let input = x.value;
  const symmetric = s.pad.some((v) => v > 0);
  if (symmetric) {
    const [ph, pw] = s.pad as [number, number];
    input = ctx.op('Pad', [x.value, ctx.ints([0, 0, ph, pw, 0, 0, ph, pw], 'pads')], [n, c, h + 2 * ph, w + 2 * pw], {
      mode: attr.string('constant'),
    });
  }
  const extra = endPad.map((v, i) => Math.max(v - (s.pad[i] as number), 0));
  const value = ctx.op('AveragePool', [input], shape, { ...common, pads: attr.ints([0, 0, ...extra]), count_include_pad: attr.int(0) });
  return [{ value, shape }];
};

/** InnerProduct: Gemm on the blob flattened at `axis` (MatMul when leading axes stay). */
export const innerProductLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.inner_product_param ?? {};
  const x = ctx.input(0);
  const axis = canonicalAxis(ctx, num(p.axis, 1), x.shape.length);
  const outputs = num(p.num_output, 0);
  if (outputs <= 0) ctx.fail('num_output must be positive');
  const k = product(x.shape.slice(axis));
  const transpose = p.transpose ?? false;
  const weightDims = transpose ? [k, outputs] : [outputs, k];
  const weight = ctx.weight(0, weightDims, p.weight_filler ?? undefined);
  const biasTerm = p.bias_term ?? true;
  const bias = biasTerm ? ctx.weight(1, [outputs], p.bias_filler ?? undefined) : undefined;
  const lead = x.shape.slice(0, axis);
  const shape = [...lead, outputs];
  const w = ctx.constant(weight, weightDims, 'weight');
  if (axis === 1) {
    const flat = x.shape.length === 2 ? x.value : ctx.op('Flatten', [x.value], [x.shape[0] as number, k], { axis: attr.int(1) });
    const inputs = [flat, w];
    if (bias) inputs.push(ctx.constant(bias, [outputs], 'bias'));
    return [{ value: ctx.op('Gemm', inputs, shape, { transB: attr.int(transpose ? 0 : 1) }), shape }];
  }
  const flat = ctx.op('Reshape', [x.value, ctx.ints([...lead, k], 'shape')], [...lead, k]);
  const wT = transpose ? w : ctx.op('Transpose', [w], [k, outputs], { perm: attr.ints([1, 0]) });
  let value = ctx.op('MatMul', [flat, wT], shape);
  if (bias) value = ctx.op('Add', [value, ctx.constant(bias, [outputs], 'bias')], shape);
  return [{ value, shape }];
};

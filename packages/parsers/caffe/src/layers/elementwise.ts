import { attr } from '@tsge/metadef';
import type { BlobRef, LayerContext } from '../convert/context.js';
import { caffe } from '../generated/caffe.js';
import { type LayerConverter, broadcastDims, num } from './shared.js';

function unary(type: string, attrs: Record<string, ReturnType<typeof attr.float>> = {}): LayerConverter {
  return (ctx) => {
    const x = ctx.input(0);
    return [{ value: ctx.op(type, [x.value], x.shape, attrs), shape: x.shape }];
  };
}

export const reluLayer: LayerConverter = (ctx) => {
  const slope = ctx.layer.params.relu_param?.negative_slope ?? 0;
  const x = ctx.input(0);
  const value = slope === 0 ? ctx.op('Relu', [x.value], x.shape) : ctx.op('LeakyRelu', [x.value], x.shape, { alpha: attr.float(slope) });
  return [{ value, shape: x.shape }];
};

export const sigmoidLayer = unary('Sigmoid');
export const tanhLayer = unary('Tanh');
export const absLayer = unary('Abs');
/** BNLL is log(1 + e^x), which Softplus computes. */
export const bnllLayer = unary('Softplus');

export const eluLayer: LayerConverter = (ctx) => {
  const x = ctx.input(0);
  return [{ value: ctx.op('Elu', [x.value], x.shape, { alpha: attr.float(ctx.layer.params.elu_param?.alpha ?? 1) }), shape: x.shape }];
};

/** PReLU: one slope per channel (axis 1), or one shared. */
export const preluLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.prelu_param ?? {};
  const x = ctx.input(0);
  const channels = x.shape.length >= 2 ? (x.shape[1] as number) : 1;
  const count = p.channel_shared ? 1 : channels;
  const slope = ctx.weight(0, [count], p.filler ?? undefined, { type: 'constant', value: 0.25 });
  const dims = p.channel_shared ? [1] : broadcastDims([count], 1, x.shape.length);
  return [{ value: ctx.op('PRelu', [x.value, ctx.constant(slope, dims, 'slope')], x.shape), shape: x.shape }];
};

/** `scale * x + shift` with the identity parts left out. */
function affine(ctx: LayerContext, x: BlobRef, scale: number, shift: number) {
  let value = x.value;
  if (scale !== 1) value = ctx.op('Mul', [value, ctx.scalar(scale, 'scale')], x.shape);
  if (shift !== 0) value = ctx.op('Add', [value, ctx.scalar(shift, 'shift')], x.shape);
  return value;
}

/** Power: (shift + scale * x) ^ power. */
export const powerLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.power_param ?? {};
  const x = ctx.input(0);
  const power = p.power ?? 1;
  const inner = affine(ctx, x, p.scale ?? 1, p.shift ?? 0);
  const value =
    power === 1
      ? inner === x.value
        ? ctx.op('Identity', [inner], x.shape)
        : inner
      : ctx.op('Pow', [inner, ctx.scalar(power, 'power')], x.shape);
  return [{ value, shape: x.shape }];
};

/** Exp: base ^ (shift + scale * x), base e when -1. */
export const expLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.exp_param ?? {};
  const x = ctx.input(0);
  const base = p.base ?? -1;
  if (base !== -1 && !(base > 0)) ctx.fail(`base ${base} must be positive (or -1 for e)`);
  const lnBase = base === -1 ? 1 : Math.log(base);
  const inner = affine(ctx, x, (p.scale ?? 1) * lnBase, (p.shift ?? 0) * lnBase);
  return [{ value: ctx.op('Exp', [inner], x.shape), shape: x.shape }];
};

/** Log: log_base(shift + scale * x), natural when base is -1. */
export const logLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.log_param ?? {};
  const x = ctx.input(0);
  const base = p.base ?? -1;
  if (base !== -1 && !(base > 0 && base !== 1)) ctx.fail(`base ${base} must be positive and not 1 (or -1 for e)`);
  let value = ctx.op('Log', [affine(ctx, x, p.scale ?? 1, p.shift ?? 0)], x.shape);
  if (base !== -1) value = ctx.op('Mul', [value, ctx.scalar(1 / Math.log(base), 'inv_log_base')], x.shape);
  return [{ value, shape: x.shape }];
};

/** Threshold: 1 where x > threshold, else 0. */
export const thresholdLayer: LayerConverter = (ctx) => {
  const x = ctx.input(0);
  const greater = ctx.net.builder.op('Greater', [x.value, ctx.scalar(ctx.layer.params.threshold_param?.threshold ?? 0, 'threshold')], {
    name: `${ctx.layer.name}/greater`,
    outputDescs: [{ dtype: 'bool', shape: [...x.shape], format: 'ND', originShape: [...x.shape], originFormat: 'ND' }],
  });
  return [{ value: ctx.op('Cast', [greater], x.shape, { to: attr.int(1) }), shape: x.shape }];
};

/** Eltwise: SUM (with per-bottom coefficients), PROD or MAX of same-shaped bottoms. */
export const eltwiseLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.eltwise_param ?? {};
  const inputs = ctx.inputs;
  if (inputs.length < 2) ctx.fail('needs at least 2 bottoms');
  const shape = (inputs[0] as BlobRef).shape;
  for (const input of inputs)
    if (input.shape.join(',') !== shape.join(','))
      ctx.fail(`bottoms have different shapes [${shape.join(',')}] and [${input.shape.join(',')}]`);
  const op = p.operation ?? caffe.EltwiseParameter.EltwiseOp.SUM;
  const coeff = p.coeff ?? [];
  if (coeff.length > 0 && (op !== caffe.EltwiseParameter.EltwiseOp.SUM || coeff.length !== inputs.length)) {
    ctx.fail('coeff needs operation SUM and one value per bottom');
  }
  const values = inputs.map((input, i) => {
    const c = coeff[i] ?? 1;
    return c === 1 ? input.value : ctx.op('Mul', [input.value, ctx.scalar(c, `coeff${i}`)], shape);
  });
  const type = op === caffe.EltwiseParameter.EltwiseOp.PROD ? 'Mul' : op === caffe.EltwiseParameter.EltwiseOp.MAX ? 'Max' : 'Add';
  if (type === 'Max') return [{ value: ctx.op('Max', values, shape), shape }];
  let value = values[0] as (typeof values)[number];
  for (const next of values.slice(1)) value = ctx.op(type, [value, next], shape);
  return [{ value, shape }];
};

export const dropoutLayer: LayerConverter = (ctx) => {
  const x = ctx.input(0);
  // inference: Caffe's Dropout passes values through unchanged (scaling happens in training)
  return [{ value: ctx.op('Identity', [x.value], x.shape), shape: x.shape }];
};

export { num };

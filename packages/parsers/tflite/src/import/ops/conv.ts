import { type TypedArray, type Value, attr } from '@tsge/metadef';
import type { TfliteTensor } from '../../schema/model.js';
import { type ImportContext, TO_NCHW, permuteShape } from '../context.js';
import { activate, clampQuantized, options, permuteData, windowAttrs } from '../helpers.js';
import { ImportProblem, badOperator } from '../problem.js';

/** How the weights of a convolution-like op map to ONNX's OIHW. */
interface ConvWeights {
  /** Permutation from the TFLite weight layout to OIHW. */
  readonly perm: readonly number[];
  /** OIHW dims (after the permutation and any reshape). */
  readonly dims: readonly number[];
  /** Quantized axis of the weights after the permutation. */
  readonly axis: number;
}

interface ConvSpec {
  readonly x: TfliteTensor;
  readonly w: TfliteTensor;
  readonly bias: TfliteTensor | undefined;
  readonly out: TfliteTensor;
  readonly weights: ConvWeights;
  readonly attrs: Record<string, ReturnType<typeof attr.ints>>;
  readonly activation: number;
}

/** CONV_2D: weights [O, KH, KW, I]. */
export function conv2d(ctx: ImportContext): void {
  const o = options(ctx);
  const x = ctx.requireInput(0);
  const w = ctx.requireInput(1);
  const ws = w.shape;
  if (ws.length !== 4 || x.shape.length !== 4) badOperator(`${ctx.opName()} needs 4-D input and weights, has [${x.shape}] and [${ws}]`);
  const inChannels = x.shape[3] as number;
  const groupIn = ws[3] as number;
  if (groupIn <= 0 || inChannels % groupIn !== 0)
    badOperator(`${ctx.opName()}: input channels ${inChannels} are not a multiple of the filter depth ${groupIn}`);
  const group = inChannels / groupIn;
  const attrs = {
    ...windowAttrs(ctx, ctx.shapeOf(x) as number[], {
      kernel: [ws[1] as number, ws[2] as number],
      stride: [o.int32(2), o.int32(1)],
      dilation: [o.int32(5, 1), o.int32(4, 1)],
      same: o.int8(0) === 0,
    }),
    kernel_shape: attr.ints([ws[1] as number, ws[2] as number]),
    group: attr.int(group) as ReturnType<typeof attr.ints>,
  };
  emitConv(ctx, {
    x,
    w,
    bias: ctx.inputTensor(2),
    out: ctx.outputTensor(),
    weights: { perm: [0, 3, 1, 2], dims: [ws[0] as number, ws[3] as number, ws[1] as number, ws[2] as number], axis: 0 },
    attrs,
    activation: o.int8(3),
  });
}

/** DEPTHWISE_CONV_2D: weights [1, KH, KW, C·M], a grouped convolution with C groups. */
export function depthwiseConv2d(ctx: ImportContext): void {
  const o = options(ctx);
  const x = ctx.requireInput(0);
  const w = ctx.requireInput(1);
  const ws = w.shape;
  if (ws.length !== 4 || x.shape.length !== 4 || ws[0] !== 1)
    badOperator(`${ctx.opName()} needs 4-D input and [1,KH,KW,C·M] weights, has [${x.shape}] and [${ws}]`);
  const channels = x.shape[3] as number;
  const outChannels = ws[3] as number;
  if (channels <= 0 || outChannels % channels !== 0)
    badOperator(`${ctx.opName()}: ${outChannels} filters are not a multiple of ${channels} input channels`);
  const attrs = {
    ...windowAttrs(ctx, ctx.shapeOf(x) as number[], {
      kernel: [ws[1] as number, ws[2] as number],
      stride: [o.int32(2), o.int32(1)],
      dilation: [o.int32(6, 1), o.int32(5, 1)],
      same: o.int8(0) === 0,
    }),
    kernel_shape: attr.ints([ws[1] as number, ws[2] as number]),
    group: attr.int(channels) as ReturnType<typeof attr.ints>,
  };
  emitConv(ctx, {
    x,
    w,
    bias: ctx.inputTensor(2),
    out: ctx.outputTensor(),
    // [1,KH,KW,CM] → [CM,1,KH,KW]
    weights: { perm: [3, 0, 1, 2], dims: [outChannels, 1, ws[1] as number, ws[2] as number], axis: 0 },
    attrs,
    activation: o.int8(4),
  });
}

/** Weights as an OIHW constant in their stored type (quantized weights stay integers). */
function weightConst(ctx: ImportContext, spec: ConvSpec): Value {
  const data = ctx.constData(spec.w);
  if (!data) throw new ImportProblem('TSGE-E3405', { op: ctx.opName(), what: `filter (tensor ${spec.w.name})` });
  const permuted = permuteData(data as TypedArray, spec.w.shape, spec.weights.perm);
  return ctx.constant('filter', permuted, spec.weights.dims, ctx.dtypeOf(spec.w));
}

/**
 * A convolution on a NHWC input: runs in NCHW (the input transposed once, the output left in
 * NCHW for the next layout-sensitive op). Fully quantized convolutions become QLinearConv with
 * the int32 bias; weight-only quantized ones dequantize their weights in the graph.
 */
function emitConv(ctx: ImportContext, spec: ConvSpec): void {
  const { x, w, bias, out } = spec;
  const outShape = permuteShape(ctx.shapeOf(out) as number[], TO_NCHW);
  const quantized = ctx.isQuantized(x) && ctx.isQuantized(w) && ctx.isQuantized(out) && (!bias || ctx.dtypeOf(bias) === 'int32');
  if (quantized) {
    const xq = ctx.quant(x);
    const wq = ctx.quant(w);
    const yq = ctx.quant(out);
    if (!xq || !wq || !yq || xq.axis !== undefined || yq.axis !== undefined) {
      throw new ImportProblem('TSGE-E3404', { tensor: x.name, reason: `${ctx.opName()} needs per-tensor quantized activations` });
    }
    const dtype = ctx.dtypeOf(out);
    let y = integerConvolution(ctx, {
      input: ctx.raw(x, 'nchw'),
      inputTensor: x,
      weights: weightConst(ctx, spec),
      weightTensor: w,
      bias,
      out,
      shape: outShape,
      attrs: spec.attrs,
    });
    y = clampQuantized(ctx, y, spec.activation, dtype, yq.scale[0] as number, yq.zeroPoint[0] as number, outShape);
    ctx.set(out.index, y, 'nchw');
    return;
  }
  const weights = ctx.isQuantized(w) || ctx.dtypeOf(w) !== 'float32' ? dequantizedWeights(ctx, spec) : weightConst(ctx, spec);
  const b = bias ? ctx.float(bias) : undefined;
  let y = ctx.node('Conv', [ctx.float(x, 'nchw'), weights, b], 'float32', outShape, spec.attrs);
  y = activate(ctx, y, spec.activation, outShape);
  ctx.setFloat(out, y, 'nchw');
}

/**
 * A quantized convolution as LiteRT (XNNPACK) computes it: an int32 accumulation
 * (ConvInteger, plus the int32 bias), then the accumulator converted to float32, multiplied by the
 * float32 requantization scale fround(fround(s_x·s_w)/s_y) per output channel, rounded half to even
 * and offset by the output zero point (QuantizeLinear with scale 1). QLinearConv's reference
 * kernel multiplies in float64 and differs from LiteRT on about one output in 10⁵; these canonical
 * ops reproduce it exactly.
 */
function integerConvolution(
  ctx: ImportContext,
  c: {
    input: Value;
    inputTensor: TfliteTensor;
    weights: Value;
    weightTensor: TfliteTensor;
    bias: TfliteTensor | undefined;
    out: TfliteTensor;
    shape: number[];
    attrs: Record<string, ReturnType<typeof attr.ints>>;
  },
): Value {
  const xq = ctx.quant(c.inputTensor);
  const wq = ctx.quant(c.weightTensor);
  const yq = ctx.quant(c.out);
  if (!xq || !wq || !yq)
    throw new ImportProblem('TSGE-E3404', {
      tensor: c.inputTensor.name,
      reason: `${ctx.opName()} needs quantized input, weights and output`,
    });
  const channels = c.shape[1] as number;
  const wzType = ctx.dtypeOf(c.weightTensor);
  const wz = wq.axis === undefined ? [wq.zeroPoint[0] ?? 0] : wq.zeroPoint;
  const Wz = wzType === 'uint8' ? Uint8Array.from(wz) : Int8Array.from(wz);
  const XzCtor = ctx.dtypeOf(c.inputTensor) === 'uint8' ? Uint8Array : Int8Array;
  const xz = ctx.constant('x_zero_point', XzCtor.of(xq.zeroPoint[0] ?? 0), [], ctx.dtypeOf(c.inputTensor));
  const wzValue = ctx.constant('w_zero_point', Wz, wq.axis === undefined ? [] : [wz.length], wzType);
  let acc = ctx.node('ConvInteger', [c.input, c.weights, xz, wzValue], 'int32', c.shape, c.attrs);
  if (c.bias) {
    const data = ctx.constData(c.bias);
    const biasValue = data ? ctx.constant('bias', data, [1, channels, 1, 1], 'int32') : ctx.raw(c.bias);
    acc = ctx.node('Add', [acc, biasValue], 'int32', c.shape);
  }
  const f = Math.fround;
  const inputScale = xq.scale[0] as number;
  const outputScale = yq.scale[0] as number;
  const scales = Float32Array.from({ length: wq.axis === undefined ? 1 : channels }, (_, i) =>
    f(f(inputScale * (wq.scale[i] as number)) / outputScale),
  );
  const accFloat = ctx.node('Cast', [acc], 'float32', c.shape, { to: attr.int(1) });
  const scaled = ctx.node(
    'Mul',
    [accFloat, ctx.constant('requant_scale', scales, scales.length === 1 ? [] : [1, channels, 1, 1], 'float32')],
    'float32',
    c.shape,
  );
  const dtype = ctx.dtypeOf(c.out);
  const YzCtor = dtype === 'uint8' ? Uint8Array : Int8Array;
  return ctx.node(
    'QuantizeLinear',
    [
      scaled,
      ctx.constant('unit_scale', Float32Array.of(1), [], 'float32'),
      ctx.constant('y_zero_point', YzCtor.of(yq.zeroPoint[0] ?? 0), [], dtype),
    ],
    dtype,
    c.shape,
  );
}

/** Weight-only quantization (or float16 weights): a DequantizeLinear/Cast of the stored weights. */
function dequantizedWeights(ctx: ImportContext, spec: ConvSpec): Value {
  const raw = weightConst(ctx, spec);
  const q = ctx.quant(spec.w);
  if (!q) return ctx.node('Cast', [raw], 'float32', spec.weights.dims, { to: attr.int(1) });
  const [scale, zp] = ctx.quantConsts(spec.w, q.axis === undefined ? q : { ...q, axis: spec.weights.axis });
  return ctx.node('DequantizeLinear', [raw, scale, zp], 'float32', spec.weights.dims, { axis: attr.int(spec.weights.axis) });
}

/**
 * FULLY_CONNECTED: y = x·Wᵀ + b over the last axis, W [O, K]. Quantized, it is a 1×1 QLinearConv
 * over [N, K, 1, 1] (the canonical op with an int32 bias input); float, a Gemm.
 */
export function fullyConnected(ctx: ImportContext): void {
  const o = options(ctx);
  if (o.int8(1) !== 0)
    throw new ImportProblem('TSGE-E3402', { op: `${ctx.opName()} with shuffled weights`, version: ctx.op?.opcode.version ?? 1 });
  const x = ctx.requireInput(0);
  const w = ctx.requireInput(1);
  const bias = ctx.inputTensor(2);
  const out = ctx.outputTensor();
  if (w.shape.length !== 2) badOperator(`${ctx.opName()} needs 2-D weights, has [${w.shape}]`);
  const [units, depth] = w.shape as [number, number];
  const outShape = ctx.shapeOf(out);
  const activation = o.int8(0);
  const rows = [-1, depth];
  const quantized = ctx.isQuantized(x) && ctx.isQuantized(w) && ctx.isQuantized(out) && (!bias || ctx.dtypeOf(bias) === 'int32');
  const reshape = (v: Value, dims: readonly number[], dtype = ctx.dtypeOf(x)) =>
    ctx.node(
      'Reshape',
      [v, ctx.int64s('shape', dims)],
      dtype,
      dims.map((d) => (d < 0 ? -1 : d)),
    );
  if (quantized) {
    const xq = ctx.quant(x);
    const yq = ctx.quant(out);
    const wq = ctx.quant(w);
    if (!xq || !yq || !wq || xq.axis !== undefined || yq.axis !== undefined) {
      throw new ImportProblem('TSGE-E3404', { tensor: x.name, reason: `${ctx.opName()} needs per-tensor quantized activations` });
    }
    const data = ctx.constData(w);
    if (!data) throw new ImportProblem('TSGE-E3405', { op: ctx.opName(), what: `weights (tensor ${w.name})` });
    const dtype = ctx.dtypeOf(out);
    const x4 = reshape(ctx.raw(x), [-1, depth, 1, 1]);
    let y = integerConvolution(ctx, {
      input: x4,
      inputTensor: x,
      weights: ctx.constant('weights', data, [units, depth, 1, 1], ctx.dtypeOf(w)),
      weightTensor: w,
      bias,
      out,
      shape: [-1, units, 1, 1],
      attrs: { kernel_shape: attr.ints([1, 1]) },
    });
    y = clampQuantized(ctx, y, activation, dtype, yq.scale[0] as number, yq.zeroPoint[0] as number, [-1, units, 1, 1]);
    ctx.set(out.index, reshape(y, outShape as number[], dtype));
    return;
  }
  let weights: Value;
  const q = ctx.quant(w);
  const data = ctx.constData(w);
  const wRaw = data ? ctx.constant('weights', data, [units, depth], ctx.dtypeOf(w)) : ctx.raw(w);
  if (q) {
    const [scale, zp] = ctx.quantConsts(w, q);
    weights = ctx.node('DequantizeLinear', [wRaw, scale, zp], 'float32', [units, depth], { axis: attr.int(q.axis ?? 0) });
  } else weights = ctx.dtypeOf(w) === 'float32' ? wRaw : ctx.node('Cast', [wRaw], 'float32', [units, depth], { to: attr.int(1) });
  const x2 = ctx.node('Reshape', [ctx.float(x), ctx.int64s('shape', rows)], 'float32', [-1, depth]);
  let y = ctx.node('Gemm', [x2, weights, bias ? ctx.float(bias) : undefined], 'float32', [-1, units], { transB: attr.int(1) });
  y = activate(ctx, y, activation, [-1, units]);
  ctx.setFloat(out, ctx.node('Reshape', [y, ctx.int64s('shape', outShape as number[])], 'float32', outShape));
}

/** TRANSPOSE_CONV: inputs (output_shape, weights [O, KH, KW, I], x, bias?). */
export function transposeConv(ctx: ImportContext): void {
  const o = options(ctx);
  const outputShape = ctx.constInts(ctx.requireInput(0), 'output shape');
  const w = ctx.requireInput(1);
  const x = ctx.requireInput(2);
  const bias = ctx.inputTensor(3);
  const out = ctx.outputTensor();
  if (w.shape.length !== 4 || x.shape.length !== 4 || outputShape.length !== 4) badOperator(`${ctx.opName()} needs 4-D shapes`);
  const [oc, kh, kw, ic] = w.shape as [number, number, number, number];
  const sh = o.int32(2);
  const sw = o.int32(1);
  if (!(sh > 0 && sw > 0)) badOperator(`${ctx.opName()} has a non-positive stride`);
  const same = o.int8(0) === 0;
  // TFLite pads so that the output has output_shape; the total padding is split, more at the end
  const pad = (inSize: number, outSize: number, k: number, s: number): [number, number] => {
    const total = same ? Math.max((inSize - 1) * s + k - outSize, 0) : 0;
    return [Math.floor(total / 2), total - Math.floor(total / 2)];
  };
  const [top, bottom] = pad(x.shape[1] as number, outputShape[1] as number, kh, sh);
  const [left, right] = pad(x.shape[2] as number, outputShape[2] as number, kw, sw);
  const data = ctx.constData(w);
  if (!data) throw new ImportProblem('TSGE-E3405', { op: ctx.opName(), what: `filter (tensor ${w.name})` });
  // ONNX ConvTranspose weights are [C_in, C_out, KH, KW]
  const permuted = permuteData(data as TypedArray, w.shape, [3, 0, 1, 2]);
  let weights = ctx.constant('filter', permuted, [ic, oc, kh, kw], ctx.dtypeOf(w));
  const q = ctx.quant(w);
  if (q) {
    const [scale, zp] = ctx.quantConsts(w, q.axis === undefined ? q : { ...q, axis: 1 });
    weights = ctx.node('DequantizeLinear', [weights, scale, zp], 'float32', [ic, oc, kh, kw], { axis: attr.int(1) });
  } else if (ctx.dtypeOf(w) !== 'float32') weights = ctx.node('Cast', [weights], 'float32', [ic, oc, kh, kw], { to: attr.int(1) });
  const outShape = permuteShape(outputShape, TO_NCHW);
  let y = ctx.node('ConvTranspose', [ctx.float(x, 'nchw'), weights, bias ? ctx.float(bias) : undefined], 'float32', outShape, {
    kernel_shape: attr.ints([kh, kw]),
    strides: attr.ints([sh, sw]),
    pads: attr.ints([top, left, bottom, right]),
    output_padding: attr.ints([
      Math.max(0, (outputShape[1] as number) - (((x.shape[1] as number) - 1) * sh + kh - top - bottom)),
      Math.max(0, (outputShape[2] as number) - (((x.shape[2] as number) - 1) * sw + kw - left - right)),
    ]),
  });
  y = activate(ctx, y, o.int8(3), outShape);
  ctx.setFloat(out, y, 'nchw');
}

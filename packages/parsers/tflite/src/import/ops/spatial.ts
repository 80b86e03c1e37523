import { type AttrValue, type DataType, type Value, attr } from '@tsge/metadef';
import { type ImportContext, TO_NCHW, onnxTypeCode, permuteShape } from '../context.js';
import { activate, options, windowAttrs } from '../helpers.js';
import { badOperator } from '../problem.js';

/**
 * AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D in NCHW. Quantized tensors go through
 * DequantizeLinear/QuantizeLinear around the float pool (TFLite requires the same scale in and
 * out, so max pooling is exact and average pooling rounds the mean once).
 */
export function pool2d(kind: 'average' | 'max' | 'l2') {
  return (ctx: ImportContext): void => {
    const o = options(ctx);
    const x = ctx.requireInput(0);
    const out = ctx.outputTensor();
    if (x.shape.length !== 4) badOperator(`${ctx.opName()} needs a 4-D input, has [${x.shape}]`);
    const kernel: [number, number] = [o.int32(4), o.int32(3)];
    const window = windowAttrs(ctx, ctx.shapeOf(x) as number[], {
      kernel,
      stride: [o.int32(2), o.int32(1)],
      dilation: [1, 1],
      same: o.int8(0) === 0,
    });
    const { dilations: _unused, ...attrs } = window;
    const outShape = permuteShape(ctx.shapeOf(out) as number[], TO_NCHW);
    const common = { ...attrs, kernel_shape: attr.ints(kernel) };
    const activation = o.int8(5);
    if (kind === 'average' && activation === 0 && ctx.isQuantized(x) && ctx.sameQuant(x, out)) {
      ctx.set(out.index, integerAverage(ctx, ctx.raw(x, 'nchw'), ctx.dtypeOf(out), outShape, common), 'nchw');
      return;
    }
    const input = ctx.float(x, 'nchw');
    let y: Value;
    if (kind === 'max') y = ctx.node('MaxPool', [input], 'float32', outShape, common);
    else if (kind === 'average') y = ctx.node('AveragePool', [input], 'float32', outShape, { ...common, count_include_pad: attr.int(0) });
    else {
      // TFLite's L2 pool is the root of the mean of squares over the valid window
      const inShape = permuteShape(ctx.shapeOf(x) as number[], TO_NCHW);
      const squared = ctx.node('Mul', [input, input], 'float32', inShape);
      const mean = ctx.node('AveragePool', [squared], 'float32', outShape, { ...common, count_include_pad: attr.int(0) });
      y = ctx.node('Sqrt', [mean], 'float32', outShape);
    }
    ctx.setFloat(out, activate(ctx, y, activation, outShape), 'nchw');
  };
}

/**
 * Average pooling of quantized integers with equal input and output parameters, as TFLite
 * computes it: the mean of the stored integers rounded half away from zero (a QDQ float pool
 * would round half to even and differ on ties).
 */
function integerAverage(ctx: ImportContext, raw: Value, dtype: DataType, shape: number[], attrs: Record<string, AttrValue>): Value {
  const values = ctx.node('Cast', [raw], 'float32', permuteShapeOf(raw), { to: attr.int(1) });
  const mean = ctx.node('AveragePool', [values], 'float32', shape, { ...attrs, count_include_pad: attr.int(0) });
  const half = ctx.constant('half', Float32Array.of(0.5), [], 'float32');
  let rounded: Value;
  if (dtype === 'uint8') rounded = ctx.node('Floor', [ctx.node('Add', [mean, half], 'float32', shape)], 'float32', shape);
  else {
    const magnitude = ctx.node(
      'Floor',
      [ctx.node('Add', [ctx.node('Abs', [mean], 'float32', shape), half], 'float32', shape)],
      'float32',
      shape,
    );
    rounded = ctx.node('Mul', [magnitude, ctx.node('Sign', [mean], 'float32', shape)], 'float32', shape);
  }
  return ctx.node('Cast', [rounded], dtype, shape, { to: attr.int(onnxTypeCode(dtype)) });
}

function permuteShapeOf(v: Value): number[] {
  return (v.desc?.shape ?? [-2]) as number[];
}

/** RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR: Resize in NCHW to the constant size. */
export function resize(mode: 'linear' | 'nearest') {
  return (ctx: ImportContext): void => {
    const o = options(ctx);
    const x = ctx.requireInput(0);
    const out = ctx.outputTensor();
    if (x.shape.length !== 4) badOperator(`${ctx.opName()} needs a 4-D input, has [${x.shape}]`);
    const size = ctx.constInts(ctx.requireInput(1), 'size');
    if (size.length !== 2 || size.some((s) => !(s > 0))) badOperator(`${ctx.opName()} has an invalid size [${size}]`);
    const alignSlot = mode === 'linear' ? 2 : 0;
    const alignCorners = o.bool(alignSlot);
    const halfPixel = o.bool(alignSlot + 1);
    const inShape = ctx.shapeOf(x) as number[];
    const outShape = [inShape[0] as number, inShape[3] as number, size[0] as number, size[1] as number];
    const transform = alignCorners
      ? 'align_corners'
      : halfPixel
        ? mode === 'linear'
          ? 'half_pixel'
          : 'tf_half_pixel_for_nn'
        : 'asymmetric';
    const attrs: Record<string, ReturnType<typeof attr.int>> = {
      mode: attr.string(mode),
      coordinate_transformation_mode: attr.string(transform),
    };
    // TFLite's nearest neighbour rounds with align_corners and floors otherwise
    if (mode === 'nearest') attrs.nearest_mode = attr.string(alignCorners ? 'round_prefer_ceil' : 'floor');
    if (mode === 'linear' && ctx.isQuantized(x) && ctx.sameQuant(x, out) && (ctx.dtypeOf(x) === 'uint8' || ctx.dtypeOf(x) === 'int8')) {
      const h = inShape[1] as number;
      const w = inShape[2] as number;
      if (h > 0 && w > 0) {
        const y = integerBilinear(ctx, ctx.raw(x, 'nchw'), ctx.dtypeOf(x), outShape, { h, w, alignCorners, halfPixel });
        ctx.set(out.index, y, 'nchw');
        return;
      }
    }
    const sizes = ctx.int64s(
      'sizes',
      outShape.map((d) => (d < 0 ? 1 : d)),
    );
    if (outShape.some((d) => d < 0)) badOperator(`${ctx.opName()} needs a static batch and channel count`);
    const y = ctx.node('Resize', [ctx.float(x, 'nchw'), undefined, undefined, sizes], 'float32', outShape, attrs);
    ctx.setFloat(out, y, 'nchw');
  };
}

/** DEPTH_TO_SPACE and SPACE_TO_DEPTH: TensorFlow's channel order is ONNX's DCR. */
export function depthSpace(type: 'DepthToSpace' | 'SpaceToDepth') {
  return (ctx: ImportContext): void => {
    const block = options(ctx).int32(0);
    if (!(block > 0)) badOperator(`${ctx.opName()} has block size ${block}`);
    const x = ctx.requireInput(0);
    const out = ctx.outputTensor();
    if (x.shape.length !== 4) badOperator(`${ctx.opName()} needs a 4-D input`);
    const outShape = permuteShape(ctx.shapeOf(out) as number[], TO_NCHW);
    const same = ctx.sameQuant(x, out);
    const attrs = { blocksize: attr.int(block), ...(type === 'DepthToSpace' ? { mode: attr.string('DCR') } : {}) };
    if (same) ctx.set(out.index, ctx.node(type, [ctx.raw(x, 'nchw')], ctx.dtypeOf(out), outShape, attrs), 'nchw');
    else ctx.setFloat(out, ctx.node(type, [ctx.float(x, 'nchw')], 'float32', outShape, attrs), 'nchw');
  };
}

/** LOCAL_RESPONSE_NORMALIZATION over the channel axis (TFLite's alpha is per element; ONNX divides by the size). */
export function localResponseNorm(ctx: ImportContext): void {
  const o = options(ctx);
  const radius = o.int32(0);
  const size = 2 * radius + 1;
  const x = ctx.requireInput(0);
  const out = ctx.outputTensor();
  if (x.shape.length !== 4) badOperator(`${ctx.opName()} needs a 4-D input`);
  const outShape = permuteShape(ctx.shapeOf(out) as number[], TO_NCHW);
  const y = ctx.node('LRN', [ctx.float(x, 'nchw')], 'float32', outShape, {
    size: attr.int(size),
    alpha: attr.float(o.float32(2) * size),
    beta: attr.float(o.float32(3)),
    bias: attr.float(o.float32(1)),
  });
  ctx.setFloat(out, y, 'nchw');
}

/**
 * Source indices and 11-bit weights of one axis of a bilinear resize, as LiteRT's CPU path
 * (XNNPACK) computes them in float32: x_in = (x + o)·scale − o with o = ½ for half-pixel centres,
 * weight = round(frac(x_in)·2048).
 */
function bilinearAxis(
  input: number,
  output: number,
  alignCorners: boolean,
  halfPixel: boolean,
): { low: number[]; high: number[]; weight: number[] } {
  const f = Math.fround;
  const adjust = alignCorners && output !== 1 ? 1 : 0;
  const scale = f(f(input - adjust) / f(output - adjust));
  const offset = !alignCorners && halfPixel ? 0.5 : 0;
  const low: number[] = [];
  const high: number[] = [];
  const weight: number[] = [];
  for (let o = 0; o < output; o++) {
    let at = f(f(f(o + offset) * scale) - offset);
    if (at < 0) at = 0;
    const base = Math.floor(at);
    const lo = Math.min(base, input - 1);
    low.push(lo);
    high.push(Math.min(lo + 1, input - 1));
    const frac = f(at - base);
    const w = frac * 2048;
    const r = Math.floor(w);
    weight.push(w - r > 0.5 || (w - r === 0.5 && r % 2 === 1) ? r + 1 : r);
  }
  return { low, high, weight };
}

/**
 * Bilinear resize of quantized integers with equal input and output parameters, bit-exact with
 * LiteRT: separable interpolation with 11-bit weights in int32, (acc + 2²¹) >> 22. int8 values are
 * offset by 128 first (the weights sum to 2²², so the offset comes back exactly).
 */
function integerBilinear(
  ctx: ImportContext,
  raw: Value,
  dtype: DataType,
  outShape: number[],
  geometry: { h: number; w: number; alignCorners: boolean; halfPixel: boolean },
): Value {
  const [n, c, oh, ow] = outShape as [number, number, number, number];
  const rows = bilinearAxis(geometry.h, oh, geometry.alignCorners, geometry.halfPixel);
  const cols = bilinearAxis(geometry.w, ow, geometry.alignCorners, geometry.halfPixel);
  const ints = (name: string, values: number[], dims: number[]) => ctx.constant(name, Int32Array.from(values), dims, 'int32');
  let v = ctx.node('Cast', [raw], 'int32', [n, c, geometry.h, geometry.w], { to: attr.int(6) });
  if (dtype === 'int8') v = ctx.node('Add', [v, ints('offset', [128], [])], 'int32', [n, c, geometry.h, geometry.w]);
  const blend = (
    input: Value,
    axis: number,
    a: { low: number[]; high: number[]; weight: number[] },
    shape: number[],
    weightDims: number[],
  ) => {
    const lowValues = ctx.node('Gather', [input, ints('low', a.low, [a.low.length])], 'int32', shape, { axis: attr.int(axis) });
    const highValues = ctx.node('Gather', [input, ints('high', a.high, [a.high.length])], 'int32', shape, { axis: attr.int(axis) });
    const lowPart = ctx.node(
      'Mul',
      [
        lowValues,
        ints(
          'w_low',
          a.weight.map((x) => 2048 - x),
          weightDims,
        ),
      ],
      'int32',
      shape,
    );
    const highPart = ctx.node('Mul', [highValues, ints('w_high', a.weight, weightDims)], 'int32', shape);
    return ctx.node('Add', [lowPart, highPart], 'int32', shape);
  };
  const horizontal = blend(v, 3, cols, [n, c, geometry.h, ow], [ow]);
  const both = blend(horizontal, 2, rows, [n, c, oh, ow], [oh, 1]);
  const rounded = ctx.node('Add', [both, ints('rounding', [1 << 21], [])], 'int32', outShape);
  let result = ctx.node('Div', [rounded, ints('shift', [1 << 22], [])], 'int32', outShape);
  if (dtype === 'int8') result = ctx.node('Sub', [result, ints('offset', [128], [])], 'int32', outShape);
  return ctx.node('Cast', [result], dtype, outShape, { to: attr.int(onnxTypeCode(dtype)) });
}

import { type Value, attr } from '@tsge/metadef';
import type { TfliteTensor } from '../../schema/model.js';
import { type ImportContext, TO_NCHW, onnxTypeCode, permuteShape } from '../context.js';
import { activate, agnosticLayout, normAxis, options } from '../helpers.js';
import { ImportProblem, badOperator } from '../problem.js';

/**
 * Data movement keeps quantized integers as they are when input and output share their
 * quantization (TFLite's usual case), and requantizes through float otherwise.
 */
function moved(
  ctx: ImportContext,
  x: TfliteTensor,
  out: TfliteTensor,
  build: (input: Value, dtype: ReturnType<ImportContext['dtypeOf']>) => Value,
): void {
  if (ctx.sameQuant(x, out) || (!ctx.isQuantized(x) && !ctx.isQuantized(out) && x.type === out.type)) {
    ctx.set(out.index, build(ctx.raw(x), ctx.dtypeOf(out)));
  } else ctx.setFloat(out, build(ctx.float(x), 'float32'));
}

/** RESHAPE, SQUEEZE, EXPAND_DIMS: a Reshape to the output's shape (dynamic dims from the shape input). */
export function reshape(ctx: ImportContext): void {
  const x = ctx.requireInput(0);
  const out = ctx.outputTensor();
  let dims = ctx.shapeOf(out) as number[];
  if (dims.filter((d) => d < 0).length > 1) {
    const shapeInput = ctx.inputTensor(1);
    if (shapeInput && ctx.isConst(shapeInput)) dims = ctx.constInts(shapeInput, 'shape');
    else {
      const fromOptions = options(ctx).int32s(0);
      if (!fromOptions) throw new ImportProblem('TSGE-E3405', { op: ctx.opName(), what: 'shape' });
      dims = fromOptions;
    }
  }
  const shape = ctx.int64s('shape', dims);
  moved(ctx, x, out, (input, dtype) => ctx.node('Reshape', [input, shape], dtype, ctx.shapeOf(out)));
}

/** CONCATENATION: in NCHW when every input already is, else in the native layout. */
export function concatenation(ctx: ImportContext): void {
  const o = options(ctx);
  const out = ctx.outputTensor();
  const inputs = (ctx.op?.inputs ?? []).map((_, i) => ctx.requireInput(i));
  if (!inputs.length) badOperator(`${ctx.opName()} has no inputs`);
  const rank = out.shape.length;
  const axis = normAxis(ctx, o.int32(0), rank);
  const layout = agnosticLayout(
    ctx,
    inputs.map((_, i) => i),
    rank,
  );
  const onnxAxis = layout === 'nchw' ? TO_NCHW.indexOf(axis as 0) : axis;
  const shape = layout === 'nchw' ? permuteShape(ctx.shapeOf(out) as number[], TO_NCHW) : ctx.shapeOf(out);
  const activation = o.int8(1);
  const eightBit = (t: TfliteTensor) =>
    ctx.isQuantized(t) && (ctx.dtypeOf(t) === 'uint8' || ctx.dtypeOf(t) === 'int8') && ctx.quant(t)?.axis === undefined;
  const integer =
    inputs.every((t) => ctx.sameQuant(t, out)) ||
    (eightBit(out) && inputs.every((t) => eightBit(t) && ctx.dtypeOf(t) === ctx.dtypeOf(out)));
  if (activation === 0 && integer) {
    // inputs with other parameters are requantized as TFLite's concatenation does
    const parts = inputs.map((t) => (ctx.sameQuant(t, out) ? ctx.raw(t, layout) : requantizeRounded(ctx, t, out, layout)));
    ctx.set(out.index, ctx.node('Concat', parts, ctx.dtypeOf(out), shape, { axis: attr.int(onnxAxis) }), layout);
    return;
  }
  let y = ctx.node(
    'Concat',
    inputs.map((t) => ctx.float(t, layout)),
    'float32',
    shape,
    { axis: attr.int(onnxAxis) },
  );
  y = activate(ctx, y, activation, shape);
  ctx.setFloat(out, y, layout);
}

/** SPLIT (axis, x) and SPLIT_V (x, sizes, axis). */
export function split(variant: 'split' | 'split_v') {
  return (ctx: ImportContext): void => {
    const x = ctx.requireInput(variant === 'split' ? 1 : 0);
    const axisTensor = ctx.requireInput(variant === 'split' ? 0 : 2);
    const rank = x.shape.length;
    const axis = normAxis(ctx, ctx.constInts(axisTensor, 'axis')[0] ?? 0, rank);
    const outputs = (ctx.op?.outputs ?? []).map((_, i) => ctx.outputTensor(i));
    const sizes = outputs.map((t) => t.shape[axis] as number);
    if (sizes.some((s) => !(s >= 0)))
      throw new ImportProblem('TSGE-E3404', { tensor: x.name, reason: `${ctx.opName()} needs static split sizes` });
    const layout = rank === 4 && ctx.hasLayout(x, 'nchw') ? 'nchw' : 'native';
    const onnxAxis = layout === 'nchw' ? TO_NCHW.indexOf(axis as 0) : axis;
    const exact = outputs.every((t) => ctx.sameQuant(x, t));
    const input = exact ? ctx.raw(x, layout) : ctx.float(x, layout);
    const values = ctx.nodeN(
      'Split',
      [input, ctx.int64s('split', sizes)],
      outputs.map((t) => ({
        dtype: exact ? ctx.dtypeOf(t) : 'float32',
        shape: layout === 'nchw' ? permuteShape(ctx.shapeOf(t) as number[], TO_NCHW) : ctx.shapeOf(t),
      })),
      { axis: attr.int(onnxAxis) },
    );
    outputs.forEach((t, i) => {
      if (exact) ctx.set(t.index, values[i] as Value, layout);
      else ctx.setFloat(t, values[i] as Value, layout);
    });
  };
}

/** PAD, PADV2 (constant value) and MIRROR_PAD. Quantized padding uses the zero point (real 0). */
export function pad(mode: 'constant' | 'mirror') {
  return (ctx: ImportContext): void => {
    const x = ctx.requireInput(0);
    const out = ctx.outputTensor();
    const paddings = ctx.constInts(ctx.requireInput(1), 'paddings');
    const rank = x.shape.length;
    if (paddings.length !== 2 * rank) badOperator(`${ctx.opName()} has ${paddings.length / 2} padding pairs for rank ${rank}`);
    const layout = rank === 4 && ctx.hasLayout(x, 'nchw') ? 'nchw' : 'native';
    const order = layout === 'nchw' ? [...TO_NCHW] : Array.from({ length: rank }, (_, i) => i);
    const pads = [...order.map((a) => paddings[2 * a] as number), ...order.map((a) => paddings[2 * a + 1] as number)];
    const shape = layout === 'nchw' ? permuteShape(ctx.shapeOf(out) as number[], TO_NCHW) : ctx.shapeOf(out);
    const modeAttr = mode === 'mirror' ? (options(ctx).int8(0) === 0 ? 'reflect' : 'symmetric') : 'constant';
    if (modeAttr === 'symmetric')
      throw new ImportProblem('TSGE-E3402', { op: `${ctx.opName()} in SYMMETRIC mode`, version: ctx.op?.opcode.version ?? 1 });
    const valueTensor = mode === 'constant' ? ctx.inputTensor(2) : undefined;
    const exact = ctx.sameQuant(x, out) && (!valueTensor || ctx.sameQuant(valueTensor, out));
    if (exact) {
      const q = ctx.quant(x);
      let value: Value | undefined;
      if (valueTensor) value = ctx.raw(valueTensor);
      else if (q && ctx.isQuantized(x))
        value = ctx.quantConsts(x, { ...q, axis: undefined, scale: q.scale.subarray(0, 1), zeroPoint: [q.zeroPoint[0] ?? 0] })[1];
      ctx.set(
        out.index,
        ctx.node('Pad', [ctx.raw(x, layout), ctx.int64s('pads', pads), value], ctx.dtypeOf(out), shape, { mode: attr.string(modeAttr) }),
        layout,
      );
      return;
    }
    const value = valueTensor ? ctx.float(valueTensor) : undefined;
    ctx.setFloat(
      out,
      ctx.node('Pad', [ctx.float(x, layout), ctx.int64s('pads', pads), value], 'float32', shape, { mode: attr.string(modeAttr) }),
      layout,
    );
  };
}

/** TRANSPOSE with a constant permutation. */
export function transpose(ctx: ImportContext): void {
  const x = ctx.requireInput(0);
  const out = ctx.outputTensor();
  const perm = ctx.constInts(ctx.requireInput(1), 'permutation');
  if (perm.length !== x.shape.length || [...perm].sort().some((p, i) => p !== i))
    badOperator(`${ctx.opName()}: [${perm}] is not a permutation of rank ${x.shape.length}`);
  moved(ctx, x, out, (input, dtype) => ctx.node('Transpose', [input], dtype, ctx.shapeOf(out), { perm: attr.ints(perm) }));
}

/** SLICE (begin, size) with constant begin and size. */
export function slice(ctx: ImportContext): void {
  const x = ctx.requireInput(0);
  const out = ctx.outputTensor();
  const begin = ctx.constInts(ctx.requireInput(1), 'begin');
  const size = ctx.constInts(ctx.requireInput(2), 'size');
  const rank = x.shape.length;
  if (begin.length !== rank || size.length !== rank) badOperator(`${ctx.opName()}: begin and size must have ${rank} entries`);
  const ends = size.map((s, i) => (s < 0 ? Number.MAX_SAFE_INTEGER : (begin[i] as number) + s));
  const args = [ctx.int64s('starts', begin), ctx.int64s('ends', ends)];
  moved(ctx, x, out, (input, dtype) => ctx.node('Slice', [input, ...args], dtype, ctx.shapeOf(out)));
}

/** STRIDED_SLICE with constant begin/end/strides and the begin/end/shrink masks. */
export function stridedSlice(ctx: ImportContext): void {
  const o = options(ctx);
  const x = ctx.requireInput(0);
  const out = ctx.outputTensor();
  const begin = ctx.constInts(ctx.requireInput(1), 'begin');
  const end = ctx.constInts(ctx.requireInput(2), 'end');
  const stridesTensor = ctx.inputTensor(3);
  const strides = stridesTensor ? ctx.constInts(stridesTensor, 'strides') : begin.map(() => 1);
  const [beginMask, endMask, ellipsisMask, newAxisMask, shrinkMask] = [0, 1, 2, 3, 4].map((s) => o.int32(s));
  if (ellipsisMask || newAxisMask)
    throw new ImportProblem('TSGE-E3402', { op: `${ctx.opName()} with ellipsis or new-axis masks`, version: ctx.op?.opcode.version ?? 1 });
  if (o.bool(5)) throw new ImportProblem('TSGE-E3402', { op: `${ctx.opName()} with offset=true`, version: ctx.op?.opcode.version ?? 1 });
  const n = begin.length;
  if (end.length !== n || strides.length !== n || n > x.shape.length) badOperator(`${ctx.opName()}: begin, end and strides disagree`);
  const big = Number.MAX_SAFE_INTEGER;
  const starts: number[] = [];
  const ends: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = strides[i] as number;
    if (s === 0) badOperator(`${ctx.opName()} has stride 0`);
    const shrink = (shrinkMask >> i) & 1;
    let b = (beginMask >> i) & 1 ? (s > 0 ? 0 : -1) : (begin[i] as number);
    let e = (endMask >> i) & 1 ? (s > 0 ? big : -big) : (end[i] as number);
    if (shrink) {
      b = begin[i] as number;
      e = b === -1 ? big : b + 1;
    }
    starts.push(b);
    ends.push(e);
  }
  const axes = Array.from({ length: n }, (_, i) => i);
  const sliced = (input: Value, dtype: ReturnType<ImportContext['dtypeOf']>) => {
    const shape = x.shape.map((d, i) => (i < n ? -1 : d));
    const v = ctx.node(
      'Slice',
      [input, ctx.int64s('starts', starts), ctx.int64s('ends', ends), ctx.int64s('axes', axes), ctx.int64s('steps', strides)],
      dtype,
      shape,
    );
    return ctx.node('Reshape', [v, ctx.int64s('shape', ctx.shapeOf(out) as number[])], dtype, ctx.shapeOf(out));
  };
  moved(ctx, x, out, sliced);
}

/** GATHER (axis, batch_dims 0). */
export function gather(ctx: ImportContext): void {
  const o = options(ctx);
  if (o.int32(1) !== 0)
    throw new ImportProblem('TSGE-E3402', { op: `${ctx.opName()} with batch_dims`, version: ctx.op?.opcode.version ?? 1 });
  const x = ctx.requireInput(0);
  const indices = ctx.requireInput(1);
  const out = ctx.outputTensor();
  const axis = normAxis(ctx, o.int32(0), x.shape.length);
  moved(ctx, x, out, (input, dtype) => ctx.node('Gather', [input, ctx.raw(indices)], dtype, ctx.shapeOf(out), { axis: attr.int(axis) }));
}

/** GATHER_ND (batch dims 0). */
export function gatherNd(ctx: ImportContext): void {
  const x = ctx.requireInput(0);
  const indices = ctx.requireInput(1);
  const out = ctx.outputTensor();
  const idx =
    ctx.dtypeOf(indices) === 'int64'
      ? ctx.raw(indices)
      : ctx.node('Cast', [ctx.raw(indices)], 'int64', ctx.shapeOf(indices), { to: attr.int(7) });
  moved(ctx, x, out, (input, dtype) => ctx.node('GatherND', [input, idx], dtype, ctx.shapeOf(out)));
}

/** PACK: Unsqueeze each input on the axis and Concat. */
export function pack(ctx: ImportContext): void {
  const o = options(ctx);
  const out = ctx.outputTensor();
  const inputs = (ctx.op?.inputs ?? []).map((_, i) => ctx.requireInput(i));
  const axis = normAxis(ctx, o.int32(1), out.shape.length);
  const exact = inputs.every((t) => ctx.sameQuant(t, out));
  const parts = inputs.map((t) => {
    const shape = [...(ctx.shapeOf(t) as number[])];
    shape.splice(axis, 0, 1);
    return ctx.node(
      'Unsqueeze',
      [exact ? ctx.raw(t) : ctx.float(t), ctx.int64s('axes', [axis])],
      exact ? ctx.dtypeOf(t) : 'float32',
      shape,
    );
  });
  const y = ctx.node('Concat', parts, exact ? ctx.dtypeOf(out) : 'float32', ctx.shapeOf(out), { axis: attr.int(axis) });
  if (exact) ctx.set(out.index, y);
  else ctx.setFloat(out, y);
}

/** UNPACK: Split into ones on the axis and squeeze it away. */
export function unpack(ctx: ImportContext): void {
  const o = options(ctx);
  const x = ctx.requireInput(0);
  const outputs = (ctx.op?.outputs ?? []).map((_, i) => ctx.outputTensor(i));
  const axis = normAxis(ctx, o.int32(1), x.shape.length);
  const exact = outputs.every((t) => ctx.sameQuant(x, t));
  const dtype = exact ? ctx.dtypeOf(x) : 'float32';
  const partShape = (ctx.shapeOf(x) as number[]).map((d, i) => (i === axis ? 1 : d));
  const parts = ctx.nodeN(
    'Split',
    [
      exact ? ctx.raw(x) : ctx.float(x),
      ctx.int64s(
        'split',
        outputs.map(() => 1),
      ),
    ],
    outputs.map(() => ({ dtype, shape: partShape })),
    { axis: attr.int(axis) },
  );
  outputs.forEach((t, i) => {
    const v = ctx.node('Squeeze', [parts[i] as Value, ctx.int64s('axes', [axis])], dtype, ctx.shapeOf(t));
    if (exact) ctx.set(t.index, v);
    else ctx.setFloat(t, v);
  });
}

/** TILE and BROADCAST_TO. */
export function tile(type: 'Tile' | 'Expand') {
  return (ctx: ImportContext): void => {
    const x = ctx.requireInput(0);
    const out = ctx.outputTensor();
    const arg = ctx.int64s(
      type === 'Tile' ? 'repeats' : 'shape',
      ctx.constInts(ctx.requireInput(1), type === 'Tile' ? 'multiples' : 'shape'),
    );
    moved(ctx, x, out, (input, dtype) => ctx.node(type, [input, arg], dtype, ctx.shapeOf(out)));
  };
}

/** SHAPE: the input's shape as int32 (or int64). */
export function shape(ctx: ImportContext): void {
  const x = ctx.requireInput(0);
  const out = ctx.outputTensor();
  const s = ctx.node('Shape', [ctx.raw(x)], 'int64', [x.shape.length]);
  ctx.set(
    out.index,
    ctx.dtypeOf(out) === 'int64'
      ? s
      : ctx.node('Cast', [s], ctx.dtypeOf(out), [x.shape.length], { to: attr.int(onnxTypeCode(ctx.dtypeOf(out))) }),
  );
}

/** CAST between TFLite types. */
export function cast(ctx: ImportContext): void {
  const x = ctx.requireInput(0);
  const out = ctx.outputTensor();
  const dtype = ctx.dtypeOf(out);
  ctx.set(
    out.index,
    ctx.node('Cast', [ctx.isQuantized(x) ? ctx.float(x) : ctx.raw(x)], dtype, ctx.shapeOf(out), { to: attr.int(onnxTypeCode(dtype)) }),
  );
}

/** ARG_MAX / ARG_MIN: on the stored integers when quantized (the scale is positive, so the order is kept). */
export function argReduce(type: 'ArgMax' | 'ArgMin') {
  return (ctx: ImportContext): void => {
    const x = ctx.requireInput(0);
    const out = ctx.outputTensor();
    const axis = normAxis(ctx, ctx.constInts(ctx.requireInput(1), 'axis')[0] ?? 0, x.shape.length);
    const layout = x.shape.length === 4 && ctx.hasLayout(x, 'nchw') && !ctx.hasLayout(x, 'native') ? 'nchw' : 'native';
    const onnxAxis = layout === 'nchw' ? TO_NCHW.indexOf(axis as 0) : axis;
    const input = ctx.isQuantized(x) || ctx.dtypeOf(x) === 'float32' ? ctx.raw(x, layout) : ctx.float(x, layout);
    const r = ctx.node(type, [input], 'int64', ctx.shapeOf(out), { axis: attr.int(onnxAxis), keepdims: attr.int(0) });
    const dtype = ctx.dtypeOf(out);
    ctx.set(out.index, dtype === 'int64' ? r : ctx.node('Cast', [r], dtype, ctx.shapeOf(out), { to: attr.int(onnxTypeCode(dtype)) }));
  };
}

/**
 * SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND on NHWC with two block dims, as Pad/Reshape/Transpose
 * chains (ONNX has no such op); the data is moved, never converted.
 */
export function spaceBatch(direction: 'to_batch' | 'to_space') {
  return (ctx: ImportContext): void => {
    const x = ctx.requireInput(0);
    const out = ctx.outputTensor();
    const block = ctx.constInts(ctx.requireInput(1), 'block shape');
    const pads = ctx.constInts(ctx.requireInput(2), direction === 'to_batch' ? 'paddings' : 'crops');
    if (x.shape.length !== 4 || block.length !== 2 || pads.length !== 4 || block.some((b) => !(b > 0))) {
      throw new ImportProblem('TSGE-E3402', {
        op: `${ctx.opName()} other than 4-D with a 2-D block`,
        version: ctx.op?.opcode.version ?? 1,
      });
    }
    const [n, h, w, c] = ctx.staticShape(x) as [number, number, number, number];
    const [bh, bw] = block as [number, number];
    const [top, bottom, left, right] = pads as [number, number, number, number];
    const build = (input: Value, dtype: ReturnType<ImportContext['dtypeOf']>): Value => {
      const reshapeTo = (v: Value, dims: number[]) => ctx.node('Reshape', [v, ctx.int64s('shape', dims)], dtype, dims);
      if (direction === 'to_batch') {
        const hp = h + top + bottom;
        const wp = w + left + right;
        if (hp % bh || wp % bw) badOperator(`${ctx.opName()}: padded size ${hp}x${wp} is not a multiple of the block ${bh}x${bw}`);
        const padded = ctx.node(
          'Pad',
          [input, ctx.int64s('pads', [0, top, left, 0, 0, bottom, right, 0]), dtype === 'float32' ? undefined : zeroOf(ctx, x)],
          dtype,
          [n, hp, wp, c],
        );
        const r = reshapeTo(padded, [n, hp / bh, bh, wp / bw, bw, c]);
        const t = ctx.node('Transpose', [r], dtype, [bh, bw, n, hp / bh, wp / bw, c], { perm: attr.ints([2, 4, 0, 1, 3, 5]) });
        return reshapeTo(t, [bh * bw * n, hp / bh, wp / bw, c]);
      }
      if (n % (bh * bw)) badOperator(`${ctx.opName()}: batch ${n} is not a multiple of the block ${bh}x${bw}`);
      const batch = n / (bh * bw);
      const r = reshapeTo(input, [bh, bw, batch, h, w, c]);
      const t = ctx.node('Transpose', [r], dtype, [batch, h, bh, w, bw, c], { perm: attr.ints([2, 3, 0, 4, 1, 5]) });
      const full = reshapeTo(t, [batch, h * bh, w * bw, c]);
      return ctx.node(
        'Slice',
        [full, ctx.int64s('starts', [top, left]), ctx.int64s('ends', [h * bh - bottom, w * bw - right]), ctx.int64s('axes', [1, 2])],
        dtype,
        ctx.shapeOf(out),
      );
    };
    moved(ctx, x, out, build);
  };
}

/** The padding value of SPACE_TO_BATCH_ND: the zero point for quantized tensors. */
function zeroOf(ctx: ImportContext, t: TfliteTensor): Value | undefined {
  const q = ctx.isQuantized(t) ? ctx.quant(t) : undefined;
  if (!q) return undefined;
  return ctx.quantConsts(t, { ...q, axis: undefined, scale: q.scale.subarray(0, 1), zeroPoint: [q.zeroPoint[0] ?? 0] })[1];
}

/**
 * TFLite's requantization of a concatenation input: round(q·s − z_in·s) + z_out with
 * s = s_in·(1/s_out) in float32, rounded half away from zero before the zero point is added.
 */
function requantizeRounded(ctx: ImportContext, t: TfliteTensor, out: TfliteTensor, layout: 'native' | 'nchw'): Value {
  const qi = ctx.quant(t);
  const qo = ctx.quant(out);
  if (!qi || !qo) return ctx.raw(t, layout);
  const f = Math.fround;
  const scale = f((qi.scale[0] as number) * f(1 / (qo.scale[0] as number)));
  const bias = f(-(qi.zeroPoint[0] ?? 0) * scale);
  const dtype = ctx.dtypeOf(out);
  const [lo, hi] = dtype === 'uint8' ? [0, 255] : [-128, 127];
  const shape = layout === 'nchw' ? permuteShape(ctx.shapeOf(t), TO_NCHW) : ctx.shapeOf(t);
  const scalar = (name: string, v: number) => ctx.constant(name, Float32Array.of(v), [], 'float32');
  const values = ctx.node('Cast', [ctx.raw(t, layout)], 'float32', shape, { to: attr.int(1) });
  const real = ctx.node(
    'Add',
    [ctx.node('Mul', [values, scalar('scale', scale)], 'float32', shape), scalar('bias', bias)],
    'float32',
    shape,
  );
  const magnitude = ctx.node(
    'Floor',
    [ctx.node('Add', [ctx.node('Abs', [real], 'float32', shape), scalar('half', 0.5)], 'float32', shape)],
    'float32',
    shape,
  );
  const rounded = ctx.node('Mul', [magnitude, ctx.node('Sign', [real], 'float32', shape)], 'float32', shape);
  const shifted = ctx.node('Add', [rounded, scalar('zero_point', qo.zeroPoint[0] ?? 0)], 'float32', shape);
  const clipped = ctx.node('Clip', [shifted, scalar('lo', lo), scalar('hi', hi)], 'float32', shape);
  return ctx.node('Cast', [clipped], dtype, shape, { to: attr.int(onnxTypeCode(dtype)) });
}

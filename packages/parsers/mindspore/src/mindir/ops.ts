import { type AttrValue, attr } from '@tsge/metadef';
import type { MsValue, NodeContext } from './context.js';

/** A MindSpore primitive → canonical ops; returns the node's output (a tuple for several). */
export type OpConverter = (ctx: NodeContext) => MsValue;

const value = (v: ReturnType<NodeContext['op1']>): MsValue => ({ kind: 'value', value: v });

function unary(type: string, attrs: Record<string, AttrValue> = {}): OpConverter {
  return (ctx) => value(ctx.op1(type, [ctx.value(0)], attrs));
}

function binary(type: string): OpConverter {
  return (ctx) => value(ctx.op1(type, [ctx.value(0), ctx.value(1)]));
}

/** Spatial attributes given as 2 values or 4 (N, C, H, W). */
function spatial(ctx: NodeContext, name: string, fallback: number): [number, number] {
  const v = ctx.intsAttr(name, [fallback, fallback]);
  if (v.length === 1) return [v[0] as number, v[0] as number];
  if (v.length === 2) return [v[0] as number, v[1] as number];
  if (v.length === 4) return [v[2] as number, v[3] as number];
  return ctx.fail(`attribute ${name} has ${v.length} values`);
}

/** pad_mode as MindSpore writes it: a string (any case) or the PadMode number (0 pad, 1 same, 2 valid). */
function padMode(ctx: NodeContext): 'pad' | 'same' | 'valid' {
  const raw = ctx.attr('pad_mode');
  const text = typeof raw === 'number' ? (['pad', 'same', 'valid'][raw] ?? '') : ctx.stringAttr('pad_mode', 'valid').toLowerCase();
  if (text !== 'pad' && text !== 'same' && text !== 'valid') ctx.fail(`pad_mode ${String(raw)} is not supported`);
  return text as 'pad' | 'same' | 'valid';
}

function checkNchw(ctx: NodeContext): void {
  const format = ctx.stringAttr('format', ctx.stringAttr('data_format', 'NCHW'));
  if (format !== 'NCHW') ctx.fail(`format ${format} is not supported (only NCHW)`);
}

const conv2d: OpConverter = (ctx) => {
  checkNchw(ctx);
  const kernel = spatial(ctx, 'kernel_size', 1);
  const strides = spatial(ctx, 'stride', 1);
  const dilations = spatial(ctx, 'dilation', 1);
  const mode = padMode(ctx);
  const attrs: Record<string, AttrValue> = {
    kernel_shape: attr.ints(kernel),
    strides: attr.ints(strides),
    dilations: attr.ints(dilations),
    group: attr.int(ctx.intAttr('group', ctx.intAttr('groups', 1))),
  };
  if (mode === 'same') attrs.auto_pad = attr.string('SAME_UPPER');
  else if (mode === 'pad') {
    const pad = ctx.intsAttr('pad', [0, 0, 0, 0]);
    const [top, bottom, left, right] = pad.length === 1 ? [pad[0], pad[0], pad[0], pad[0]] : pad;
    attrs.pads = attr.ints([top, left, bottom, right].map(Number));
  }
  const inputs = [ctx.value(0), ctx.value(1)];
  if (ctx.inputs.length > 2 && ctx.inputs[2]?.kind !== 'monad') inputs.push(ctx.value(2));
  return value(ctx.op1('Conv', inputs, attrs));
};

function pool(type: 'MaxPool' | 'AveragePool'): OpConverter {
  return (ctx) => {
    checkNchw(ctx);
    const kernel = spatial(ctx, 'kernel_size', 1);
    const strides = spatial(ctx, 'strides', 1);
    const mode = padMode(ctx);
    const attrs: Record<string, AttrValue> = { kernel_shape: attr.ints(kernel), strides: attr.ints(strides) };
    if (mode === 'same') attrs.auto_pad = attr.string('SAME_UPPER');
    if (mode === 'pad') {
      const pad = ctx.intsAttr('pad_list', ctx.intsAttr('pad', [0, 0, 0, 0]));
      const [top, bottom, left, right] = pad.length === 1 ? [pad[0], pad[0], pad[0], pad[0]] : pad;
      attrs.pads = attr.ints([top, left, bottom, right].map(Number));
    }
    if (type === 'AveragePool') attrs.count_include_pad = attr.int(0);
    if (ctx.boolAttr('ceil_mode')) attrs.ceil_mode = attr.int(1);
    return value(ctx.op1(type, [ctx.value(0)], attrs));
  };
}

/** MatMul (2-D): transpose flags under their 1.x and 2.x names; Gemm keeps them as attributes. */
const matMul: OpConverter = (ctx) => {
  const transA = ctx.boolAttr('transpose_a', 'transpose_x1');
  const transB = ctx.boolAttr('transpose_b', 'transpose_x2');
  const inputs = [ctx.value(0), ctx.value(1)];
  if (ctx.inputs.length > 2 && ctx.inputs[2]?.kind !== 'monad') inputs.push(ctx.value(2));
  if (!transA && !transB && inputs.length === 2) return value(ctx.op1('MatMul', inputs));
  return value(ctx.op1('Gemm', inputs, { transA: attr.int(transA ? 1 : 0), transB: attr.int(transB ? 1 : 0) }));
};

/** BatchMatMul: transposes of the last two axes, then MatMul (rank from the recorded output shape). */
const batchMatMul: OpConverter = (ctx) => {
  const rank = ctx.out(0).shape.length;
  if (rank < 2 || ctx.out(0).shape[0] === -2) ctx.fail('needs a recorded output rank');
  const perm = [...Array.from({ length: rank - 2 }, (_, i) => i), rank - 1, rank - 2];
  const side = (i: number, flag: boolean) =>
    flag ? ctx.op1('Transpose', [ctx.value(i)], { perm: attr.ints(perm) }, { dtype: ctx.out(0).dtype, shape: [-2] }) : ctx.value(i);
  return value(
    ctx.op1('MatMul', [side(0, ctx.boolAttr('transpose_a', 'transpose_x1')), side(1, ctx.boolAttr('transpose_b', 'transpose_x2'))]),
  );
};

/** BiasAdd: the bias on the channel axis (1 for NCHW), so it is reshaped to broadcast there. */
const biasAdd: OpConverter = (ctx) => {
  const rank = ctx.out(0).shape.length;
  const format = ctx.stringAttr('format', ctx.stringAttr('data_format', 'NCHW'));
  if (rank <= 2 || format === 'NHWC') return value(ctx.op1('Add', [ctx.value(0), ctx.value(1)]));
  const shape = [-1, ...new Array(rank - 2).fill(1)];
  const bias = ctx.op1('Reshape', [ctx.value(1), ctx.int64s(shape, 'bias_shape')], {}, { dtype: ctx.out(0).dtype, shape: [-2] });
  return value(ctx.op1('Add', [ctx.value(0), bias]));
};

const reshape: OpConverter = (ctx) => value(ctx.op1('Reshape', [ctx.value(0), ctx.int64s(ctx.ints(1), 'shape')]));
const transpose: OpConverter = (ctx) =>
  value(ctx.op1('Transpose', [ctx.value(0)], { perm: attr.ints(ctx.inputs.length > 1 ? ctx.ints(1) : ctx.intsAttr('perm')) }));
const expandDims: OpConverter = (ctx) =>
  value(ctx.op1('Unsqueeze', [ctx.value(0), ctx.int64s(ctx.inputs.length > 1 ? ctx.ints(1) : ctx.intsAttr('axis'), 'axes')]));
const squeeze: OpConverter = (ctx) => {
  const axes = ctx.intsAttr('axis', []);
  return value(ctx.op1('Squeeze', axes.length ? [ctx.value(0), ctx.int64s(axes, 'axes')] : [ctx.value(0)]));
};

const softmax =
  (type: string): OpConverter =>
  (ctx) => {
    const axes = ctx.intsAttr('axis', [-1]);
    if (axes.length !== 1) ctx.fail('only one softmax axis is supported');
    return value(ctx.op1(type, [ctx.value(0)], { axis: attr.int(axes[0] as number) }));
  };

/** Concat of a tuple input (or of several inputs). */
const concat: OpConverter = (ctx) => {
  const first = ctx.input(0);
  const items = first.kind === 'tuple' ? first.items : ctx.inputs.filter((v) => v.kind !== 'monad');
  return value(
    ctx.op1(
      'Concat',
      items.map((v) => ctx.toValue(v)),
      { axis: attr.int(ctx.intAttr('axis', 0)) },
    ),
  );
};

/** StridedSlice with begin/end masks and shrink axes (ellipsis and new axes are refused). */
const stridedSlice: OpConverter = (ctx) => {
  const begin = ctx.ints(1);
  const end = ctx.ints(2);
  const strides = ctx.ints(3);
  if (ctx.intAttr('ellipsis_mask', 0) !== 0 || ctx.intAttr('new_axis_mask', 0) !== 0)
    ctx.fail('ellipsis_mask and new_axis_mask are not supported');
  const beginMask = ctx.intAttr('begin_mask', 0);
  const endMask = ctx.intAttr('end_mask', 0);
  const shrink = ctx.intAttr('shrink_axis_mask', 0);
  const n = begin.length;
  if (end.length !== n || strides.length !== n) ctx.fail('begin, end and strides differ in length');
  const BIG = Number.MAX_SAFE_INTEGER;
  const starts: number[] = [];
  const ends: number[] = [];
  const squeezed: number[] = [];
  for (let i = 0; i < n; i++) {
    const step = strides[i] as number;
    if (step === 0) ctx.fail('a stride is 0');
    let s = begin[i] as number;
    let e = end[i] as number;
    if (beginMask & (1 << i)) s = step > 0 ? 0 : BIG;
    if (endMask & (1 << i)) e = step > 0 ? BIG : -BIG;
    if (shrink & (1 << i)) {
      e = s + 1 === 0 ? BIG : s + 1;
      squeezed.push(i);
    }
    starts.push(s);
    ends.push(e);
  }
  const axes = Array.from({ length: n }, (_, i) => i);
  const sliced = ctx.op1(
    'Slice',
    [ctx.value(0), ctx.int64s(starts, 'starts'), ctx.int64s(ends, 'ends'), ctx.int64s(axes, 'axes'), ctx.int64s(strides, 'steps')],
    {},
    squeezed.length ? { dtype: ctx.out(0).dtype, shape: [-2] } : ctx.out(0),
  );
  return value(squeezed.length ? ctx.op1('Squeeze', [sliced, ctx.int64s(squeezed, 'squeeze')]) : sliced);
};

/** BatchNorm in inference: (x, scale, bias, mean, variance) → y (the other outputs are training statistics). */
const batchNorm: OpConverter = (ctx) => {
  if (ctx.boolAttr('is_training')) ctx.fail('training-mode BatchNorm is not supported');
  checkNchw(ctx);
  const eps = ctx.attr('epsilon');
  const y = ctx.op1(
    'BatchNormalization',
    [0, 1, 2, 3, 4].map((i) => ctx.value(i)),
    { epsilon: attr.float(typeof eps === 'number' ? eps : 1e-5) },
  );
  return { kind: 'tuple', items: [value(y)] };
};

const cast: OpConverter = (ctx) =>
  value(
    ctx.op1('Cast', [ctx.value(0)], {
      to: attr.int(
        ({ float32: 1, uint8: 2, int8: 3, int16: 5, int32: 6, int64: 7, bool: 9, float16: 10, float64: 11 } as Record<string, number>)[
          ctx.out(0).dtype
        ] ?? 1,
      ),
    }),
  );

export const OP_CONVERTERS: ReadonlyMap<string, OpConverter> = new Map<string, OpConverter>([
  ['Add', binary('Add')],
  ['AddV2', binary('Add')],
  ['Sub', binary('Sub')],
  ['Mul', binary('Mul')],
  ['RealDiv', binary('Div')],
  ['Div', binary('Div')],
  ['Maximum', binary('Max')],
  ['Minimum', binary('Min')],
  ['Pow', binary('Pow')],
  ['Equal', binary('Equal')],
  ['Greater', binary('Greater')],
  ['Less', binary('Less')],
  ['ReLU', unary('Relu')],
  ['ReLU6', (ctx) => value(ctx.op1('Clip', [ctx.value(0), ctx.floats([0], [], 'min'), ctx.floats([6], [], 'max')]))],
  ['Sigmoid', unary('Sigmoid')],
  ['Tanh', unary('Tanh')],
  ['Exp', unary('Exp')],
  ['Log', unary('Log')],
  ['Sqrt', unary('Sqrt')],
  ['Rsqrt', (ctx) => value(ctx.op1('Reciprocal', [ctx.op1('Sqrt', [ctx.value(0)])]))],
  ['Reciprocal', unary('Reciprocal')],
  ['Neg', unary('Neg')],
  ['Abs', unary('Abs')],
  ['Square', (ctx) => value(ctx.op1('Mul', [ctx.value(0), ctx.value(0)]))],
  ['Erf', unary('Erf')],
  ['GeLU', unary('Gelu')],
  ['Softmax', softmax('Softmax')],
  ['LogSoftmax', softmax('LogSoftmax')],
  ['Conv2D', conv2d],
  ['MaxPool', pool('MaxPool')],
  ['AvgPool', pool('AveragePool')],
  ['MatMul', matMul],
  ['BatchMatMul', batchMatMul],
  ['BiasAdd', biasAdd],
  ['BatchNorm', batchNorm],
  ['Reshape', reshape],
  ['Transpose', transpose],
  ['ExpandDims', expandDims],
  ['Squeeze', squeeze],
  ['Flatten', unary('Flatten', { axis: attr.int(1) })],
  ['Concat', concat],
  ['StridedSlice', stridedSlice],
  ['Cast', cast],
  ['Identity', unary('Identity')],
]);

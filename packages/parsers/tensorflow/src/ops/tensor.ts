import { type DataType, ONNX_DTYPE, type Value, attr, createTensor, toNumberArray } from '@tsge/metadef';
import type { ConvertContext } from '../import/context.js';
import type { ConverterTable } from './registry.js';
import { packLists, unpackLists } from './tensor-list.js';

/** Large bounds for Slice: ONNX clamps starts/ends to the dim, so these mean "to the edge". */
const FAR = Number.MAX_SAFE_INTEGER;

function withRank(ctx: ConvertContext, v: Value, rank: number | undefined, dtype?: DataType): Value {
  return ctx.note(v, { ...(rank !== undefined ? { rank } : {}), ...(dtype ? { dtype } : {}) });
}

/** Shape/Size/Rank results come out int64 in ONNX; TF asks for out_type (int32 by default). */
function shapeLike(ctx: ConvertContext, v: Value, rank: number): Value {
  const out = ctx.attrs.dtype('out_type', 'int32');
  return withRank(ctx, ctx.cast(withRank(ctx, v, rank, 'int64'), out), rank, out);
}

function axisOf(ctx: ConvertContext, i: number, what = 'axis'): number {
  const values = ctx.constNumbers(i, what);
  if (values.length !== 1) throw ctx.problem(`${what} must be a scalar`);
  return values[0] as number;
}

function stridedSlice(ctx: ConvertContext): Value[] {
  const x = ctx.input(0);
  const strides = ctx.constNumbers(3, 'strides');
  const n = strides.length;
  const beginMask = ctx.attrs.int('begin_mask', 0);
  const endMask = ctx.attrs.int('end_mask', 0);
  const ellipsisMask = ctx.attrs.int('ellipsis_mask', 0);
  const newAxisMask = ctx.attrs.int('new_axis_mask', 0);
  const shrinkMask = ctx.attrs.int('shrink_axis_mask', 0);
  const bit = (mask: number, i: number) => (mask >> i) & 1;
  if (strides.some((s) => s === 0)) throw ctx.problem('a stride is 0');
  let ellipsis = n;
  for (let i = 0; i < n; i++)
    if (bit(ellipsisMask, i)) {
      if (ellipsis !== n) throw ctx.problem('more than one ellipsis');
      ellipsis = i;
    }
  // Input axis of each spec entry: before the ellipsis counted from the front, after it from the back.
  const consumesAfter: number[] = [];
  for (let i = ellipsis + 1; i < n; i++) if (!bit(newAxisMask, i)) consumesAfter.push(i);
  const inputAxis = new Map<number, number>();
  let front = 0;
  for (let i = 0; i < ellipsis; i++) if (!bit(newAxisMask, i)) inputAxis.set(i, front++);
  consumesAfter.forEach((entry, k) => {
    inputAxis.set(entry, k - consumesAfter.length);
  });
  const beginConst = ctx.constantOf(1);
  const endConst = ctx.constantOf(2);
  const entries = [...inputAxis.keys()].sort((a, b) => a - b);
  const axes = entries.map((i) => inputAxis.get(i) as number);
  const steps = entries.map((i) => strides[i] as number);
  let starts: Value;
  let ends: Value;
  if (beginConst && endConst) {
    const b = toNumberArray(beginConst);
    const e = toNumberArray(endConst);
    if (b.length !== n || e.length !== n) throw ctx.problem('begin, end and strides differ in length');
    const s: number[] = [];
    const t: number[] = [];
    for (const i of entries) {
      const step = strides[i] as number;
      if (bit(shrinkMask, i)) {
        const at = b[i] as number;
        s.push(at);
        t.push(at === -1 ? FAR : at + 1);
        continue;
      }
      s.push(bit(beginMask, i) ? (step > 0 ? 0 : FAR) : (b[i] as number));
      t.push(bit(endMask, i) ? (step > 0 ? FAR : -FAR) : (e[i] as number));
    }
    starts = ctx.int64s(s);
    ends = ctx.int64s(t);
  } else {
    if (ellipsisMask || newAxisMask) throw ctx.problem('begin and end must be constants with an ellipsis or new-axis mask');
    const b = ctx.toInt64(ctx.input(1));
    const e = ctx.toInt64(ctx.input(2));
    const mask = (m: number) =>
      ctx.constant(
        createTensor(
          'bool',
          [n],
          Uint8Array.from({ length: n }, (_, i) => bit(m, i)),
        ),
      );
    const beginDefault = ctx.int64s(strides.map((st) => (st > 0 ? 0 : FAR)));
    const endDefault = ctx.int64s(strides.map((st) => (st > 0 ? FAR : -FAR)));
    starts = ctx.op1('Where', [mask(beginMask & ~shrinkMask), beginDefault, b]);
    ends = ctx.op1('Where', [mask(endMask & ~shrinkMask), endDefault, e]);
    if (shrinkMask) {
      const next = ctx.op1('Add', [b, ctx.int64s([1])]);
      const shrinkEnd = ctx.op1('Where', [ctx.op1('Equal', [b, ctx.int64s([-1])]), ctx.int64s([FAR]), next]);
      ends = ctx.op1('Where', [mask(shrinkMask), shrinkEnd, ends]);
    }
  }
  let y = ctx.op1('Slice', [x, starts, ends, ctx.int64s(axes), ctx.int64s(steps)]);
  const squeeze = entries.filter((i) => bit(shrinkMask, i)).map((i) => inputAxis.get(i) as number);
  if (squeeze.length) y = ctx.op1('Squeeze', [y, ctx.int64s(squeeze)]);
  // new axes: positions in the output, from the front before the ellipsis and from the back after it
  const unsqueeze: number[] = [];
  let outFront = 0;
  for (let i = 0; i < Math.min(ellipsis, n); i++) {
    if (bit(newAxisMask, i)) unsqueeze.push(outFront++);
    else if (!bit(shrinkMask, i)) outFront++;
  }
  let outBack = 0;
  for (let i = n - 1; i > ellipsis; i--) {
    if (bit(newAxisMask, i)) unsqueeze.push(-1 - outBack++);
    else if (!bit(shrinkMask, i)) outBack++;
  }
  if (unsqueeze.length) y = ctx.op1('Unsqueeze', [y, ctx.int64s(unsqueeze)]);
  const rank = ctx.rankOf(x);
  return [withRank(ctx, y, rank !== undefined ? rank - squeeze.length + unsqueeze.length : undefined, ctx.dtypeOf(x))];
}

export const tensorConverters: ConverterTable = {
  Shape: (ctx) => {
    const x = ctx.input(0);
    return [shapeLike(ctx, ctx.op1('Shape', [x]), 1)];
  },
  Size: (ctx) => [shapeLike(ctx, ctx.op1('Size', [ctx.input(0)]), 0)],
  Rank: (ctx) => {
    const rank = ctx.rankOf(ctx.input(0));
    if (rank !== undefined) return [ctx.scalar(rank, 'int32')];
    return [withRank(ctx, ctx.cast(ctx.op1('Size', [ctx.op1('Shape', [ctx.input(0)])]), 'int32'), 0, 'int32')];
  },
  Reshape: (ctx) => {
    const shape = ctx.constantOf(1);
    // TF never copies a dim for 0 (ONNX does unless allowzero): say so whenever a 0 can occur
    const zero = shape ? toNumberArray(shape).includes(0) : true;
    const y = ctx.op1('Reshape', [ctx.input(0), ctx.toInt64(ctx.input(1))], zero ? { allowzero: attr.int(1) } : {});
    return [withRank(ctx, y, shape ? shape.data.length : undefined, ctx.dtypeOf(ctx.input(0)))];
  },
  ExpandDims: (ctx) => {
    const x = ctx.input(0);
    const rank = ctx.rankOf(x);
    return [
      withRank(ctx, ctx.op1('Unsqueeze', [x, ctx.toInt64List(ctx.input(1))]), rank !== undefined ? rank + 1 : undefined, ctx.dtypeOf(x)),
    ];
  },
  Squeeze: (ctx) => {
    const x = ctx.input(0);
    const dims = ctx.attrs.ints('squeeze_dims', ctx.attrs.ints('axis', []));
    const rank = ctx.rankOf(x);
    if (!dims.length) return [withRank(ctx, ctx.op1('Squeeze', [x]), undefined, ctx.dtypeOf(x))];
    return [withRank(ctx, ctx.op1('Squeeze', [x, ctx.int64s(dims)]), rank !== undefined ? rank - dims.length : undefined, ctx.dtypeOf(x))];
  },
  ConcatV2: (ctx) => {
    const n = ctx.inputCount - 1;
    const axis = axisOf(ctx, n);
    const values = Array.from({ length: n }, (_, i) => ctx.input(i));
    if (values.length === 1) return [values[0] as Value];
    return [
      withRank(ctx, ctx.op1('Concat', values, { axis: attr.int(axis) }), ctx.rankOf(values[0] as Value), ctx.dtypeOf(values[0] as Value)),
    ];
  },
  Concat: (ctx) => {
    const axis = axisOf(ctx, 0);
    const values = Array.from({ length: ctx.inputCount - 1 }, (_, i) => ctx.input(i + 1));
    if (values.length === 1) return [values[0] as Value];
    return [
      withRank(ctx, ctx.op1('Concat', values, { axis: attr.int(axis) }), ctx.rankOf(values[0] as Value), ctx.dtypeOf(values[0] as Value)),
    ];
  },
  Pack: (ctx) => {
    const axis = ctx.attrs.int('axis', 0);
    const values = Array.from({ length: ctx.inputCount }, (_, i) => ctx.input(i));
    if (values.some((v) => ctx.info(v).sequence)) return packLists(ctx);
    const rank = ctx.rankOf(values[0] as Value);
    const constants = values.map((_, i) => ctx.constantOf(i));
    // packing scalars known at parse time (shape vectors) stays a constant
    if (axis === 0 && constants.every((c) => c && c.dims.length === 0 && c.type === constants[0]?.type)) {
      const type = constants[0]?.type as DataType;
      const t = createTensor(type, [values.length]);
      constants.forEach((c, i) => {
        (t.data as unknown as unknown[])[i] = c?.data[0];
      });
      return [ctx.constant(t)];
    }
    const axes = ctx.int64s([axis]);
    const parts = values.map((v) => ctx.op1('Unsqueeze', [v, axes]));
    const y = parts.length === 1 ? (parts[0] as Value) : ctx.op1('Concat', parts, { axis: attr.int(axis) });
    return [withRank(ctx, y, rank !== undefined ? rank + 1 : undefined, ctx.dtypeOf(values[0] as Value))];
  },
  Unpack: (ctx) => {
    const x = ctx.input(0);
    if (ctx.info(x).listBatch) return unpackLists(ctx);
    const num = ctx.attrs.int('num');
    const axis = ctx.attrs.int('axis', 0);
    const rank = ctx.rankOf(x);
    if (num < 1) throw ctx.problem('num must be positive');
    const parts = num === 1 ? [x] : ctx.op('Split', [x], { axis: attr.int(axis), num_outputs: attr.int(num) }, num);
    const axes = ctx.int64s([axis]);
    return parts.map((p) => withRank(ctx, ctx.op1('Squeeze', [p, axes]), rank !== undefined ? rank - 1 : undefined, ctx.dtypeOf(x)));
  },
  Split: (ctx) => {
    const axis = axisOf(ctx, 0);
    const x = ctx.input(1);
    const num = ctx.attrs.int('num_split');
    if (num < 1) throw ctx.problem('num_split must be positive');
    if (num === 1) return [x];
    return ctx
      .op('Split', [x], { axis: attr.int(axis), num_outputs: attr.int(num) }, num)
      .map((p) => withRank(ctx, p, ctx.rankOf(x), ctx.dtypeOf(x)));
  },
  SplitV: (ctx) => {
    const x = ctx.input(0);
    const axis = axisOf(ctx, 2);
    const num = ctx.attrs.int('num_split');
    if (num < 1) throw ctx.problem('num_split must be positive');
    let sizes = ctx.constNumbers(1, 'size_splits');
    let sizeValue: Value;
    if (sizes.includes(-1)) {
      // the -1 entry takes what is left: dim - sum(others)
      const dim = ctx.op1('Gather', [ctx.op1('Shape', [x]), ctx.int64s([axis])], { axis: attr.int(0) });
      const known = sizes.filter((s) => s !== -1).reduce((a, b) => a + b, 0);
      const rest = ctx.op1('Sub', [dim, ctx.int64s([known])]);
      const at = sizes.indexOf(-1);
      const pieces: Value[] = [];
      if (at > 0) pieces.push(ctx.int64s(sizes.slice(0, at)));
      pieces.push(rest);
      if (at < sizes.length - 1) pieces.push(ctx.int64s(sizes.slice(at + 1)));
      sizeValue = pieces.length === 1 ? rest : ctx.op1('Concat', pieces, { axis: attr.int(0) });
    } else sizeValue = ctx.int64s(sizes);
    sizes = [];
    if (num === 1) return [x];
    return ctx.op('Split', [x, sizeValue], { axis: attr.int(axis) }, num).map((p) => withRank(ctx, p, ctx.rankOf(x), ctx.dtypeOf(x)));
  },
  Transpose: (ctx) => {
    const x = ctx.input(0);
    const perm = ctx.constNumbers(1, 'perm');
    return [withRank(ctx, ctx.transpose(x, perm), perm.length, ctx.dtypeOf(x))];
  },
  Fill: (ctx) => {
    const dims = ctx.constantOf(0);
    const y = ctx.op1('Expand', [ctx.input(1), ctx.toInt64(ctx.input(0))]);
    return [withRank(ctx, y, dims?.data.length, ctx.dtypeOf(ctx.input(1)))];
  },
  ZerosLike: (ctx) => {
    const x = ctx.input(0);
    const type = ctx.attrs.dtype('T', 'float32');
    return [withRank(ctx, ctx.op1('Expand', [ctx.scalar(0, type), ctx.op1('Shape', [x])]), ctx.rankOf(x), type)];
  },
  OnesLike: (ctx) => {
    const x = ctx.input(0);
    const type = ctx.attrs.dtype('T', 'float32');
    return [withRank(ctx, ctx.op1('Expand', [ctx.scalar(1, type), ctx.op1('Shape', [x])]), ctx.rankOf(x), type)];
  },
  BroadcastTo: (ctx) => {
    const shape = ctx.constantOf(1);
    return [withRank(ctx, ctx.op1('Expand', [ctx.input(0), ctx.toInt64(ctx.input(1))]), shape?.data.length, ctx.dtypeOf(ctx.input(0)))];
  },
  Range: (ctx) => {
    const type = ctx.attrs.dtype('Tidx', 'int32');
    const parts = [0, 1, 2].map((i) => ctx.cast(ctx.input(i), type));
    return [withRank(ctx, ctx.op1('Range', parts), 1, type)];
  },
  Tile: (ctx) => [
    withRank(ctx, ctx.op1('Tile', [ctx.input(0), ctx.toInt64(ctx.input(1))]), ctx.rankOf(ctx.input(0)), ctx.dtypeOf(ctx.input(0))),
  ],
  Slice: (ctx) => {
    const x = ctx.input(0);
    const begin = ctx.constantOf(1);
    const size = ctx.constantOf(2);
    let starts: Value;
    let ends: Value;
    let n: number;
    if (begin && size) {
      const b = toNumberArray(begin);
      const s = toNumberArray(size);
      if (b.length !== s.length) throw ctx.problem('begin and size differ in length');
      n = b.length;
      starts = ctx.int64s(b);
      ends = ctx.int64s(b.map((v, i) => ((s[i] as number) < 0 ? FAR : v + (s[i] as number))));
    } else {
      const rank = ctx.rankOf(ctx.input(1)) === 1 ? undefined : undefined;
      const b = ctx.toInt64(ctx.input(1));
      const s = ctx.toInt64(ctx.input(2));
      const sum = ctx.op1('Add', [b, s]);
      starts = b;
      ends = ctx.op1('Where', [ctx.op1('Less', [s, ctx.int64s([0])]), ctx.int64s([FAR]), sum]);
      const shapeOfBegin = ctx.op1('Shape', [b]);
      n = rank ?? -1;
      const axes = ctx.op1('Range', [ctx.int64s([0], []), ctx.op1('Squeeze', [shapeOfBegin, ctx.int64s([0])]), ctx.int64s([1], [])]);
      return [withRank(ctx, ctx.op1('Slice', [x, starts, ends, axes]), ctx.rankOf(x), ctx.dtypeOf(x))];
    }
    return [
      withRank(ctx, ctx.op1('Slice', [x, starts, ends, ctx.int64s(Array.from({ length: n }, (_, i) => i))]), ctx.rankOf(x), ctx.dtypeOf(x)),
    ];
  },
  StridedSlice: stridedSlice,
  GatherV2: (ctx) => {
    if (ctx.attrs.int('batch_dims', 0) !== 0) throw ctx.problem('batch_dims other than 0 is not supported');
    const axis = axisOf(ctx, 2);
    const x = ctx.input(0);
    const ri = ctx.rankOf(ctx.input(1));
    const rx = ctx.rankOf(x);
    const y = ctx.op1('Gather', [x, ctx.input(1)], { axis: attr.int(axis) });
    return [withRank(ctx, y, rx !== undefined && ri !== undefined ? rx + ri - 1 : undefined, ctx.dtypeOf(x))];
  },
  Gather: (ctx) => [ctx.op1('Gather', [ctx.input(0), ctx.input(1)], { axis: attr.int(0) })],
  GatherNd: (ctx) => [withRank(ctx, ctx.op1('GatherND', [ctx.input(0), ctx.toInt64(ctx.input(1))]), undefined, ctx.dtypeOf(ctx.input(0)))],
  Pad: (ctx) => pad(ctx, 'constant'),
  PadV2: (ctx) => pad(ctx, 'constant'),
  MirrorPad: (ctx) => {
    const mode = ctx.attrs.string('mode');
    if (mode === 'REFLECT') return pad(ctx, 'reflect');
    if (mode === 'SYMMETRIC') return [symmetricPad(ctx)];
    throw ctx.problem(`mode ${mode} is not supported`);
  },
  ReverseV2: (ctx) => {
    const x = ctx.input(0);
    let y = x;
    for (const axis of ctx.constNumbers(1, 'axis'))
      y = ctx.op1('Slice', [y, ctx.int64s([-1]), ctx.int64s([-FAR]), ctx.int64s([axis]), ctx.int64s([-1])]);
    return [withRank(ctx, y, ctx.rankOf(x), ctx.dtypeOf(x))];
  },
  Where: (ctx) => {
    // TF Where(cond) → [N, rank] int64 coordinates; ONNX NonZero gives [rank, N]
    const x = ctx.input(0);
    return [withRank(ctx, ctx.transpose(ctx.op1('NonZero', [x]), [1, 0]), 2, 'int64')];
  },
  OneHot: (ctx) => {
    const axis = ctx.attrs.int('axis', -1);
    const values = ctx.op1(
      'Concat',
      [ctx.op1('Reshape', [ctx.input(3), ctx.int64s([1])]), ctx.op1('Reshape', [ctx.input(2), ctx.int64s([1])])],
      { axis: attr.int(0) },
    );
    const rank = ctx.rankOf(ctx.input(0));
    return [
      withRank(
        ctx,
        ctx.op1('OneHot', [ctx.input(0), ctx.toInt64(ctx.input(1)), values], { axis: attr.int(axis) }),
        rank !== undefined ? rank + 1 : undefined,
      ),
    ];
  },
  ScatterNd: (ctx) => {
    const type = ctx.dtypeOf(ctx.input(1)) ?? ctx.attrs.dtype('T', 'float32');
    const zeros = ctx.op1('Expand', [ctx.scalar(0, type), ctx.toInt64(ctx.input(2))]);
    return [ctx.op1('ScatterND', [zeros, ctx.toInt64(ctx.input(0)), ctx.input(1)], { reduction: attr.string('add') })];
  },
  SparseToDense: (ctx) => {
    // indices [N, R] (or [N] for R = 1), output_shape [R], values [N] or scalar, default scalar
    const type = ctx.attrs.dtype('T', 'float32');
    const shape = ctx.toInt64(ctx.input(1));
    const base = ctx.op1('Expand', [ctx.input(3), shape]);
    let indices = ctx.toInt64(ctx.input(0));
    if (ctx.rankOf(ctx.input(0)) === 1 || ctx.rankOf(ctx.input(0)) === 0) indices = ctx.op1('Reshape', [indices, ctx.int64s([-1, 1])]);
    const count = ctx.op1('Slice', [ctx.op1('Shape', [indices]), ctx.int64s([0]), ctx.int64s([1]), ctx.int64s([0])]);
    const values = ctx.op1('Expand', [ctx.input(2), count]);
    return [withRank(ctx, ctx.op1('ScatterND', [base, indices, values]), undefined, type)];
  },
  Cumsum: (ctx) => {
    const y = ctx.op1('CumSum', [ctx.input(0), ctx.toInt64(ctx.input(1))], {
      exclusive: attr.int(ctx.attrs.bool('exclusive', false) ? 1 : 0),
      reverse: attr.int(ctx.attrs.bool('reverse', false) ? 1 : 0),
    });
    return [withRank(ctx, y, ctx.rankOf(ctx.input(0)), ctx.dtypeOf(ctx.input(0)))];
  },
  Einsum: (ctx) => {
    const inputs = Array.from({ length: ctx.inputCount }, (_, i) => ctx.input(i));
    return [ctx.op1('Einsum', inputs, { equation: attr.string(ctx.attrs.string('equation')) })];
  },
  TopKV2: (ctx) => {
    const k = ctx.toInt64List(ctx.input(1));
    const [values, indices] = ctx.op('TopK', [ctx.input(0), k], { axis: attr.int(-1), largest: attr.int(1), sorted: attr.int(1) }, 2);
    const rank = ctx.rankOf(ctx.input(0));
    return [
      withRank(ctx, values as Value, rank, ctx.dtypeOf(ctx.input(0))),
      withRank(ctx, ctx.cast(indices as Value, 'int32'), rank, 'int32'),
    ];
  },
};

function pad(ctx: ConvertContext, mode: string): Value[] {
  const x = ctx.input(0);
  const paddings = ctx.constantOf(1);
  let pads: Value;
  if (paddings) {
    const p = toNumberArray(paddings);
    const r = p.length / 2;
    pads = ctx.int64s([
      ...Array.from({ length: r }, (_, i) => p[2 * i] as number),
      ...Array.from({ length: r }, (_, i) => p[2 * i + 1] as number),
    ]);
  } else pads = ctx.op1('Reshape', [ctx.transpose(ctx.toInt64(ctx.input(1)), [1, 0]), ctx.int64s([-1])]);
  const inputs: (Value | undefined)[] = [x, pads];
  if (mode === 'constant' && ctx.inputCount > 2) inputs.push(ctx.input(2));
  return [withRank(ctx, ctx.op1('Pad', inputs, { mode: attr.string(mode) }), ctx.rankOf(x), ctx.dtypeOf(x))];
}

/** SYMMETRIC mirror padding (edge repeated): per axis, concat reversed slices of the borders. */
function symmetricPad(ctx: ConvertContext): Value {
  let y = ctx.input(0);
  const p = ctx.constNumbers(1, 'paddings');
  for (let axis = 0; axis < p.length / 2; axis++) {
    const before = p[2 * axis] as number;
    const after = p[2 * axis + 1] as number;
    if (!before && !after) continue;
    const parts: Value[] = [];
    const ax = ctx.int64s([axis]);
    if (before) parts.push(ctx.op1('Slice', [y, ctx.int64s([before - 1]), ctx.int64s([-FAR]), ax, ctx.int64s([-1])]));
    parts.push(y);
    if (after) parts.push(ctx.op1('Slice', [y, ctx.int64s([-1]), ctx.int64s([-1 - after]), ax, ctx.int64s([-1])]));
    y = ctx.op1('Concat', parts, { axis: attr.int(axis) });
  }
  return y;
}

export { ONNX_DTYPE };

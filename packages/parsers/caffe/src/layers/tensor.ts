import { attr } from '@tsge/metadef';
import type { BlobRef } from '../convert/context.js';
import { caffe } from '../generated/caffe.js';
import { type LayerConverter, canonicalAxis, has, num, product } from './shared.js';

export const concatLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.concat_param ?? {};
  const first = ctx.input(0);
  const rank = first.shape.length;
  const axis = canonicalAxis(ctx, has(p, 'axis') || !has(p, 'concat_dim') ? num(p.axis, 1) : num(p.concat_dim, 1), rank);
  const shape = [...first.shape];
  shape[axis] = 0;
  for (const input of ctx.inputs) {
    if (input.shape.length !== rank || input.shape.some((d, i) => i !== axis && d !== first.shape[i])) {
      ctx.fail(`bottoms [${first.shape.join(',')}] and [${input.shape.join(',')}] differ outside axis ${axis}`);
    }
    shape[axis] = (shape[axis] as number) + (input.shape[axis] as number);
  }
  if (ctx.inputs.length === 1) return [first];
  return [
    {
      value: ctx.op(
        'Concat',
        ctx.inputs.map((i) => i.value),
        shape,
        { axis: attr.int(axis) },
      ),
      shape,
    },
  ];
};

/** Slice: at slice_point positions, or into equal parts, one per top. */
export const sliceLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.slice_param ?? {};
  const x = ctx.input(0);
  const axis = canonicalAxis(ctx, has(p, 'axis') || !has(p, 'slice_dim') ? num(p.axis, 1) : num(p.slice_dim, 1), x.shape.length);
  const size = x.shape[axis] as number;
  const tops = ctx.layer.tops.length;
  const points = (p.slice_point ?? []).map(Number);
  let sizes: number[];
  if (points.length > 0) {
    if (points.length !== tops - 1) ctx.fail(`${points.length} slice points for ${tops} tops`);
    const bounds = [0, ...points, size];
    sizes = bounds.slice(1).map((b, i) => b - (bounds[i] as number));
  } else {
    if (size % tops !== 0) ctx.fail(`axis ${axis} of size ${size} does not split into ${tops} equal parts`);
    sizes = new Array(tops).fill(size / tops);
  }
  if (sizes.some((s) => s <= 0)) ctx.fail('slice points must increase inside the axis');
  const shapes = sizes.map((s) => x.shape.map((d, i) => (i === axis ? s : d)));
  if (tops === 1) return [x];
  const values = ctx.opN('Split', [x.value, ctx.ints(sizes, 'split')], shapes, { axis: attr.int(axis) });
  return values.map((value, i) => ({ value, shape: shapes[i] as number[] }));
};

/** Split copies its bottom to every top: the tops are the same value. */
export const splitLayer: LayerConverter = (ctx) => {
  const x = ctx.input(0);
  return ctx.layer.tops.map(() => x);
};

export const softmaxLayer: LayerConverter = (ctx) => {
  const x = ctx.input(0);
  const axis = canonicalAxis(ctx, num(ctx.layer.params.softmax_param?.axis, 1), x.shape.length);
  return [{ value: ctx.op('Softmax', [x.value], x.shape, { axis: attr.int(axis) }), shape: x.shape }];
};

function reshapeTo(ctx: Parameters<LayerConverter>[0], x: BlobRef, shape: readonly number[]): BlobRef {
  return { value: ctx.op('Reshape', [x.value, ctx.ints(shape, 'shape')], shape), shape };
}

/** Flatten: axes axis..end_axis become one; the others stay. */
export const flattenLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.flatten_param ?? {};
  const x = ctx.input(0);
  const rank = x.shape.length;
  const start = canonicalAxis(ctx, num(p.axis, 1), rank);
  const end = canonicalAxis(ctx, num(p.end_axis, -1), rank, 'end_axis');
  if (end < start) ctx.fail(`end_axis ${end} is before axis ${start}`);
  return [reshapeTo(ctx, x, [...x.shape.slice(0, start), product(x.shape.slice(start, end + 1)), ...x.shape.slice(end + 1)])];
};

/** Reshape with Caffe's rules: 0 copies the input dim, one -1 is inferred, axis/num_axes pick the span replaced. */
export const reshapeLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.reshape_param ?? {};
  const x = ctx.input(0);
  const rank = x.shape.length;
  const dims = (p.shape?.dim ?? []).map(Number);
  const axisParam = num(p.axis, 0);
  const start = axisParam < 0 ? axisParam + rank + 1 : axisParam;
  if (start < 0 || start > rank) ctx.fail(`axis ${axisParam} is out of range for rank ${rank}`);
  const numAxes = num(p.num_axes, -1);
  const end = numAxes === -1 ? rank : start + numAxes;
  if (numAxes < -1 || end > rank) ctx.fail(`num_axes ${numAxes} is out of range`);
  const middle = dims.map((d, i) => {
    if (d === 0) {
      const source = x.shape[start + i];
      if (source === undefined) ctx.fail(`dim ${i} copies an input axis that does not exist`);
      return source as number;
    }
    if (d < -1) ctx.fail(`dim ${d} is invalid`);
    return d;
  });
  const shape = [...x.shape.slice(0, start), ...middle, ...x.shape.slice(end)];
  const inferred = shape.filter((d) => d === -1).length;
  if (inferred > 1) ctx.fail('more than one dim is -1');
  const known = product(shape.filter((d) => d !== -1));
  const total = product(x.shape);
  if (inferred === 1) {
    if (known === 0 || total % known !== 0) ctx.fail(`cannot infer the -1 dim: ${total} values over ${known}`);
    shape[shape.indexOf(-1)] = total / known;
  } else if (known !== total) ctx.fail(`shape [${shape.join(',')}] holds ${known} values, the input has ${total}`);
  return [reshapeTo(ctx, x, shape)];
};

/** Permute (SSD): the listed axes first, then the rest in order. */
export const permuteLayer: LayerConverter = (ctx) => {
  const x = ctx.input(0);
  const rank = x.shape.length;
  const order: number[] = [];
  for (const raw of ctx.layer.params.permute_param?.order ?? []) {
    const axis = canonicalAxis(ctx, Number(raw), rank, 'order');
    if (order.includes(axis)) ctx.fail(`order repeats axis ${axis}`);
    order.push(axis);
  }
  for (let i = 0; i < rank; i++) if (!order.includes(i)) order.push(i);
  const shape = order.map((a) => x.shape[a] as number);
  if (order.every((a, i) => a === i)) return [x];
  return [{ value: ctx.op('Transpose', [x.value], shape, { perm: attr.ints(order) }), shape }];
};

/** Crop bottom 0 to the shape of bottom 1 from `axis`, at the given offsets. */
export const cropLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.crop_param ?? {};
  const x = ctx.input(0);
  const reference = ctx.input(1);
  const rank = x.shape.length;
  if (reference.shape.length !== rank) ctx.fail('both bottoms need the same rank');
  const axis = canonicalAxis(ctx, num(p.axis, 2), rank);
  const offsets = (p.offset ?? []).map(Number);
  if (offsets.length > 1 && offsets.length !== rank - axis) ctx.fail(`${offsets.length} offsets for ${rank - axis} cropped axes`);
  const axes: number[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const shape = [...x.shape];
  for (let i = axis; i < rank; i++) {
    const offset = offsets.length === 0 ? 0 : offsets.length === 1 ? (offsets[0] as number) : (offsets[i - axis] as number);
    const size = reference.shape[i] as number;
    if (offset + size > (x.shape[i] as number)) ctx.fail(`axis ${i}: offset ${offset} + size ${size} exceeds ${x.shape[i]}`);
    axes.push(i);
    starts.push(offset);
    ends.push(offset + size);
    shape[i] = size;
  }
  const value = ctx.op('Slice', [x.value, ctx.ints(starts, 'starts'), ctx.ints(ends, 'ends'), ctx.ints(axes, 'axes')], shape);
  return [{ value, shape }];
};

/** Interp (PSPNet/DeepLab): bilinear resize with aligned corners to a size, zoom or shrink factor. */
export const interpLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.interp_param ?? {};
  const x = ctx.input(0);
  if (x.shape.length !== 4) ctx.fail('needs a 4-D blob');
  const [n, c, h, w] = x.shape as [number, number, number, number];
  const padBeg = num(p.pad_beg, 0);
  const padEnd = num(p.pad_end, 0);
  if (padBeg > 0 || padEnd > 0) ctx.fail('pad_beg and pad_end must be 0 or negative');
  const inH = h + padBeg + padEnd;
  const inW = w + padBeg + padEnd;
  let outH: number;
  let outW: number;
  const shrink = num(p.shrink_factor, 1);
  const zoom = num(p.zoom_factor, 1);
  if (ctx.inputs.length > 1) {
    [outH, outW] = ctx.input(1).shape.slice(2) as [number, number];
  } else if (has(p, 'height') || has(p, 'width')) {
    outH = num(p.height, 0);
    outW = num(p.width, 0);
  } else {
    if (shrink < 1 || zoom < 1) ctx.fail('shrink_factor and zoom_factor must be at least 1');
    outH = Math.floor((inH - 1) / shrink) + 1;
    outW = Math.floor((inW - 1) / shrink) + 1;
    outH = outH + (outH - 1) * (zoom - 1);
    outW = outW + (outW - 1) * (zoom - 1);
  }
  if (outH <= 0 || outW <= 0) ctx.fail('the output size must be positive');
  let input = x.value;
  if (padBeg < 0 || padEnd < 0) {
    input = ctx.op(
      'Slice',
      [x.value, ctx.ints([-padBeg, -padBeg], 'starts'), ctx.ints([h + padEnd, w + padEnd], 'ends'), ctx.ints([2, 3], 'axes')],
      [n, c, inH, inW],
    );
  }
  const shape = [n, c, outH, outW];
  const value = ctx.op('Resize', [input, undefined, undefined, ctx.ints(shape, 'sizes')], shape, {
    mode: attr.string('linear'),
    coordinate_transformation_mode: attr.string('align_corners'),
  });
  return [{ value, shape }];
};

/** Upsample with one bottom: nearest-neighbour by an integer scale (as darknet-style Caffe forks define it). */
export const upsampleLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.upsample_param ?? {};
  const x = ctx.input(0);
  if (ctx.inputs.length > 1) ctx.fail('max-unpooling with a mask bottom is not supported');
  if (x.shape.length !== 4) ctx.fail('needs a 4-D blob');
  const scale = num(p.scale, 2);
  const sh = has(p, 'scale_h') ? num(p.scale_h, 2) : scale;
  const sw = has(p, 'scale_w') ? num(p.scale_w, 2) : scale;
  const [n, c, h, w] = x.shape as [number, number, number, number];
  const outH = has(p, 'upsample_h') ? num(p.upsample_h, 0) : h * sh;
  const outW = has(p, 'upsample_w') ? num(p.upsample_w, 0) : w * sw;
  if (outH <= 0 || outW <= 0) ctx.fail('the output size must be positive');
  const shape = [n, c, outH, outW];
  const value = ctx.op('Resize', [x.value, undefined, undefined, ctx.ints(shape, 'sizes')], shape, {
    mode: attr.string('nearest'),
    coordinate_transformation_mode: attr.string('asymmetric'),
    nearest_mode: attr.string('floor'),
  });
  return [{ value, shape }];
};

/** ShuffleChannel: channels regrouped as (group, C/group) → (C/group, group). */
export const shuffleChannelLayer: LayerConverter = (ctx) => {
  const x = ctx.input(0);
  const group = num(ctx.layer.params.shuffle_channel_param?.group, 1);
  if (x.shape.length < 2) ctx.fail('needs a blob with a channel axis');
  const [n, c] = x.shape as [number, number];
  if (group <= 0 || c % group !== 0) ctx.fail(`group ${group} must divide ${c} channels`);
  const rest = x.shape.slice(2);
  const split = [n, group, c / group, ...rest];
  const grouped = ctx.op('Reshape', [x.value, ctx.ints(split, 'grouped')], split);
  const perm = [0, 2, 1, ...rest.map((_, i) => i + 3)];
  const swapped = ctx.op('Transpose', [grouped], [n, c / group, group, ...rest], { perm: attr.ints(perm) });
  return [{ value: ctx.op('Reshape', [swapped, ctx.ints(x.shape, 'shape')], x.shape), shape: x.shape }];
};

/**
 * ArgMax: the top_k indices (as float, like Caffe) along `axis`, or over each sample's flattened
 * values when no axis is set ([N, 1 or 2, k] with out_max_val giving index and value pairs).
 */
export const argMaxLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.argmax_param ?? {};
  const x = ctx.input(0);
  const k = num(p.top_k, 1);
  const withAxis = has(p, 'axis');
  const source = withAxis
    ? x
    : {
        value: ctx.op(
          'Reshape',
          [x.value, ctx.ints([x.shape[0] as number, 1, -1], 'flat')],
          [x.shape[0] as number, 1, product(x.shape.slice(1))],
        ),
        shape: [x.shape[0] as number, 1, product(x.shape.slice(1))],
      };
  const axis = withAxis ? canonicalAxis(ctx, num(p.axis, 0), x.shape.length) : 2;
  if (k <= 0 || k > (source.shape[axis] as number)) ctx.fail(`top_k ${k} must be between 1 and ${source.shape[axis]}`);
  const shape = source.shape.map((d, i) => (i === axis ? k : d));
  const [values, indices] = ctx.net.builder.opN('TopK', [source.value, ctx.ints([k], 'k')], 2, {
    name: `${ctx.layer.name}/topk`,
    attrs: { axis: attr.int(axis), largest: attr.int(1), sorted: attr.int(1) },
    outputDescs: [
      { dtype: 'float32', shape: [...shape], format: 'ND', originShape: [...shape], originFormat: 'ND' },
      { dtype: 'int64', shape: [...shape], format: 'ND', originShape: [...shape], originFormat: 'ND' },
    ],
  }) as [BlobRef['value'], BlobRef['value']];
  if (withAxis && p.out_max_val) return [{ value: ctx.op('Identity', [values], shape), shape }];
  const asFloat = ctx.op('Cast', [indices], shape, { to: attr.int(1) });
  if (!p.out_max_val) return [{ value: asFloat, shape }];
  const pairShape = [shape[0] as number, 2, k];
  return [{ value: ctx.op('Concat', [asFloat, values], pairShape, { axis: attr.int(1) }), shape: pairShape }];
};

/** Reduction over all axes from `axis` on: SUM, ASUM, SUMSQ or MEAN, times coeff. */
export const reductionLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.reduction_param ?? {};
  const x = ctx.input(0);
  const rank = x.shape.length;
  const axis = canonicalAxis(ctx, num(p.axis, 0), Math.max(rank, 1));
  const op = p.operation ?? caffe.ReductionParameter.ReductionOp.SUM;
  const types: Record<number, string> = {
    [caffe.ReductionParameter.ReductionOp.SUM]: 'ReduceSum',
    [caffe.ReductionParameter.ReductionOp.ASUM]: 'ReduceL1',
    [caffe.ReductionParameter.ReductionOp.SUMSQ]: 'ReduceSumSquare',
    [caffe.ReductionParameter.ReductionOp.MEAN]: 'ReduceMean',
  };
  const type = types[op];
  if (!type) ctx.fail(`unknown operation ${op}`);
  const shape = x.shape.slice(0, axis);
  const axes = Array.from({ length: rank - axis }, (_, i) => i + axis);
  let value = ctx.op(type as string, [x.value, ctx.ints(axes, 'axes')], shape, { keepdims: attr.int(0) });
  const coeff = p.coeff ?? 1;
  if (coeff !== 1) value = ctx.op('Mul', [value, ctx.scalar(coeff, 'coeff')], shape);
  return [{ value, shape }];
};

export const tileLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.tile_param ?? {};
  const x = ctx.input(0);
  const axis = canonicalAxis(ctx, num(p.axis, 1), x.shape.length);
  const tiles = num(p.tiles, 0);
  if (tiles <= 0) ctx.fail('tiles must be positive');
  const repeats = x.shape.map((_, i) => (i === axis ? tiles : 1));
  const shape = x.shape.map((d, i) => (i === axis ? d * tiles : d));
  return [{ value: ctx.op('Tile', [x.value, ctx.ints(repeats, 'repeats')], shape), shape }];
};

/** Silence consumes its bottoms and produces nothing. */
export const silenceLayer: LayerConverter = () => [];

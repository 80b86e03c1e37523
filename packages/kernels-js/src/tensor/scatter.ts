// ScatterElements (and its old alias Scatter), ScatterND and TensorScatter: copy data, then write
// updates at indexed places, optionally combining with a reduction.
import type { DataType, KernelContextV1 } from '@tsge/metadef';
import { copyBlock, sameStorage, product } from '../common/tensor-copy.js';
import { indexValues, kernelAxis, kernelError, requireTensor } from '../common/tensor-infer.js';
import { type Combine, isScatterReduction, scatterCombiner } from '../common/tensor-reduction.js';
import { defineKernel } from '../define.js';
import { elementOffsets, ndSliceStarts } from './gather.js';

function combinerOf(ctx: KernelContextV1, dtype: DataType): Combine {
  const reduction = ctx.attrs.string('reduction', 'none');
  if (!isScatterReduction(reduction)) throw kernelError(ctx, `unknown reduction '${reduction}'`);
  const combine = scatterCombiner(reduction, dtype);
  if (!combine) throw kernelError(ctx, `reduction '${reduction}' does not apply to ${dtype}`);
  return combine;
}

function scatterElementsKernel(opType: 'ScatterElements' | 'Scatter') {
  return defineKernel({
    opType,
    inPlace: [[0, 0]],
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const indicesT = requireTensor(ctx, 1);
      const updates = requireTensor(ctx, 2);
      if (indicesT.dims.length !== x.dims.length || updates.dims.some((d, i) => d !== indicesT.dims[i]))
        throw kernelError(ctx, 'indices and updates must have equal dims of the data rank');
      const axis = kernelAxis(ctx, ctx.attrs.int('axis', 0), x.dims.length);
      const combine = opType === 'Scatter' ? (scatterCombiner('none', x.type) as Combine) : combinerOf(ctx, x.type);
      let offsets: Int32Array;
      try {
        offsets = elementOffsets(x.dims, indicesT.dims, axis, indexValues(indicesT), (i) => {
          throw kernelError(ctx, `index ${i} is out of range`);
        });
      } catch (e) {
        throw e instanceof RangeError ? kernelError(ctx, e.message) : e;
      }
      const y = ctx.output(0, x.dims, x.type);
      if (!sameStorage(y.data, x.data)) copyBlock(x.data, 0, y.data, 0, x.data.length);
      for (let k = 0; k < offsets.length; k++) combine(y.data, offsets[k] as number, updates.data, k);
    },
  });
}

export const scatterNdKernel = defineKernel({
  opType: 'ScatterND',
  inPlace: [[0, 0]],
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const indicesT = requireTensor(ctx, 1);
    const updates = requireTensor(ctx, 2);
    const combine = combinerOf(ctx, x.type);
    const { starts, sliceSize, outDims } = ndSliceStarts(x.dims, indicesT.dims, indexValues(indicesT), 0, (reason) => {
      throw kernelError(ctx, reason);
    });
    if (outDims.length !== updates.dims.length || outDims.some((d, i) => d !== updates.dims[i]))
      throw kernelError(ctx, `updates dims [${updates.dims.join(',')}] should be [${outDims.join(',')}]`);
    const y = ctx.output(0, x.dims, x.type);
    if (!sameStorage(y.data, x.data)) copyBlock(x.data, 0, y.data, 0, x.data.length);
    for (let t = 0; t < starts.length; t++) {
      const start = starts[t] as number;
      for (let j = 0; j < sliceSize; j++) combine(y.data, start + j, updates.data, t * sliceSize + j);
    }
  },
});

export const tensorScatterKernel = defineKernel({
  opType: 'TensorScatter',
  inPlace: [[0, 0]],
  compute(ctx) {
    const past = requireTensor(ctx, 0);
    const update = requireTensor(ctx, 1);
    const indicesT = ctx.tensor(2);
    const rank = past.dims.length;
    const axis = kernelAxis(ctx, ctx.attrs.int('axis', -2), rank);
    const circular = ctx.attrs.string('mode', 'linear') === 'circular';
    if (update.dims.length !== rank || update.dims.some((d, i) => (i === axis ? d > (past.dims[i] as number) : d !== past.dims[i])))
      throw kernelError(ctx, `update dims [${update.dims.join(',')}] do not fit past_cache [${past.dims.join(',')}]`);
    const maxSeq = past.dims[axis] as number;
    const seq = update.dims[axis] as number;
    const inner = product(past.dims, axis + 1);
    const outer = product(past.dims, 0, axis);
    const perBatch = product(past.dims, 1, axis);
    const writeAt = indicesT ? indexValues(indicesT) : undefined;
    const y = ctx.output(0, past.dims, past.type);
    if (!sameStorage(y.data, past.data)) copyBlock(past.data, 0, y.data, 0, past.data.length);
    for (let o = 0; o < outer; o++) {
      const batch = axis === 0 ? 0 : Math.floor(o / perBatch);
      const start = writeAt ? writeAt[batch] : 0;
      if (start === undefined || !Number.isInteger(start)) throw kernelError(ctx, `write_indices has no entry for batch ${batch}`);
      for (let s = 0; s < seq; s++) {
        let at = start + s;
        if (circular) at = ((at % maxSeq) + maxSeq) % maxSeq;
        if (at < 0 || at >= maxSeq) throw kernelError(ctx, `write index ${at} is outside the cache of ${maxSeq}`);
        copyBlock(update.data, (o * seq + s) * inner, y.data, (o * maxSeq + at) * inner, inner);
      }
    }
  },
});
export const scatterKernels = [
  scatterElementsKernel('ScatterElements'),
  scatterElementsKernel('Scatter'),
  scatterNdKernel,
  tensorScatterKernel,
];

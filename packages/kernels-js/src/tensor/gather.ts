// Gather, GatherElements and GatherND: index-driven reads (negative indices count from the end).
import { copyBlock, product, rowMajorStrides } from '../common/tensor-copy.js';
import { indexValues, kernelAxis, kernelError, requireTensor } from '../common/tensor-infer.js';
import { defineKernel } from '../define.js';

export const gatherKernel = defineKernel({
  opType: 'Gather',
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const indicesT = requireTensor(ctx, 1);
    const axis = kernelAxis(ctx, ctx.attrs.int('axis', 0), x.dims.length);
    const indices = indexValues(indicesT);
    const axisDim = x.dims[axis] as number;
    const outer = product(x.dims, 0, axis);
    const inner = product(x.dims, axis + 1);
    const y = ctx.output(0, [...x.dims.slice(0, axis), ...indicesT.dims, ...x.dims.slice(axis + 1)], x.type);
    const n = indices.length;
    for (let k = 0; k < n; k++) {
      const i = indices[k] as number;
      if (i < -axisDim || i >= axisDim) throw kernelError(ctx, `index ${i} is out of range for axis of ${axisDim}`);
    }
    let o = 0;
    for (let outerIndex = 0; outerIndex < outer; outerIndex++) {
      const base = outerIndex * axisDim;
      for (let k = 0; k < n; k++) {
        const raw = indices[k] as number;
        copyBlock(x.data, (base + (raw < 0 ? raw + axisDim : raw)) * inner, y.data, o, inner);
        o += inner;
      }
    }
  },
});

/**
 * For element-wise index ops (GatherElements, ScatterElements): calls back with the flat offset into
 * `dataDims` for each position of `indexDims`, the axis coordinate replaced by the index.
 */
export function elementOffsets(
  dataDims: readonly number[],
  indexDims: readonly number[],
  axis: number,
  indices: Float64Array,
  onBadIndex: (index: number) => never,
): Int32Array {
  const rank = indexDims.length;
  for (let d = 0; d < rank; d++) {
    if (d !== axis && (indexDims[d] as number) > (dataDims[d] as number))
      throw new RangeError(`indices dim ${d} (${indexDims[d]}) exceeds the data's ${dataDims[d]}`);
  }
  const strides = rowMajorStrides(dataDims);
  const total = indices.length;
  const offsets = new Int32Array(total);
  const coord = new Int32Array(rank);
  const axisDim = dataDims[axis] as number;
  const axisStride = strides[axis] as number;
  let base = 0; // offset of the coordinate without the axis term
  for (let k = 0; k < total; k++) {
    let i = indices[k] as number;
    if (i < -axisDim || i >= axisDim) onBadIndex(i);
    if (i < 0) i += axisDim;
    offsets[k] = base + i * axisStride;
    for (let d = rank - 1; d >= 0; d--) {
      const c = (coord[d] as number) + 1;
      const s = d === axis ? 0 : (strides[d] as number);
      if (c < (indexDims[d] as number)) {
        coord[d] = c;
        base += s;
        break;
      }
      base -= s * (c - 1);
      coord[d] = 0;
    }
  }
  return offsets;
}

export const gatherElementsKernel = defineKernel({
  opType: 'GatherElements',
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const indicesT = requireTensor(ctx, 1);
    if (indicesT.dims.length !== x.dims.length) throw kernelError(ctx, 'data and indices ranks differ');
    const axis = kernelAxis(ctx, ctx.attrs.int('axis', 0), x.dims.length);
    let offsets: Int32Array;
    try {
      offsets = elementOffsets(x.dims, indicesT.dims, axis, indexValues(indicesT), (i) => {
        throw kernelError(ctx, `index ${i} is out of range`);
      });
    } catch (e) {
      throw e instanceof RangeError ? kernelError(ctx, e.message) : e;
    }
    const y = ctx.output(0, indicesT.dims, x.type);
    const src = x.data as unknown as { [i: number]: unknown };
    const dst = y.data as unknown as { [i: number]: unknown };
    for (let k = 0; k < offsets.length; k++) dst[k] = src[offsets[k] as number];
  },
});

/** GatherND/ScatterND geometry: for each index tuple, the flat start of its slice in data. */
export function ndSliceStarts(
  dataDims: readonly number[],
  indexDims: readonly number[],
  indices: Float64Array,
  batchDims: number,
  onBad: (reason: string) => never,
): { starts: Float64Array; sliceSize: number; outDims: number[] } {
  const k = indexDims[indexDims.length - 1] as number;
  if (indexDims.length < 1 || k > dataDims.length - batchDims) onBad(`index tuples of ${k} do not fit data rank ${dataDims.length}`);
  if (batchDims < 0 || batchDims >= indexDims.length || batchDims >= dataDims.length) onBad(`batch_dims ${batchDims} is out of range`);
  for (let d = 0; d < batchDims; d++) if (indexDims[d] !== dataDims[d]) onBad(`batch dim ${d} differs between data and indices`);
  const batch = product(dataDims, 0, batchDims);
  const strides = rowMajorStrides(dataDims);
  const sliceSize = product(dataDims, batchDims + k);
  const tuples = product(indexDims, 0, indexDims.length - 1);
  const perBatch = batch === 0 ? 0 : tuples / batch;
  const batchStride = product(dataDims, batchDims);
  const starts = new Float64Array(tuples);
  for (let t = 0; t < tuples; t++) {
    let offset = Math.floor(t / (perBatch || 1)) * batchStride;
    for (let j = 0; j < k; j++) {
      const d = dataDims[batchDims + j] as number;
      let i = indices[t * k + j] as number;
      if (i < -d || i >= d) onBad(`index ${i} is out of range for dim of ${d}`);
      if (i < 0) i += d;
      offset += i * (strides[batchDims + j] as number);
    }
    starts[t] = offset;
  }
  return { starts, sliceSize, outDims: [...indexDims.slice(0, -1), ...dataDims.slice(batchDims + k)] };
}

export const gatherNdKernel = defineKernel({
  opType: 'GatherND',
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const indicesT = requireTensor(ctx, 1);
    const geometry = ndSliceStarts(x.dims, indicesT.dims, indexValues(indicesT), ctx.attrs.int('batch_dims', 0), (reason) => {
      throw kernelError(ctx, reason);
    });
    const y = ctx.output(0, geometry.outDims, x.type);
    const { starts, sliceSize } = geometry;
    for (let t = 0; t < starts.length; t++) copyBlock(x.data, starts[t] as number, y.data, t * sliceSize, sliceSize);
  },
});
export const gatherKernels = [gatherKernel, gatherElementsKernel, gatherNdKernel];

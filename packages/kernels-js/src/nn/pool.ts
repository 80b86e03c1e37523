/** AveragePool, MaxPool (with Indices), LpPool and the Global* pools over any spatial rank. */
import type { KernelContextV1, KernelV1 } from '@tsge/metadef';
import { OUTSIDE_PADDING, windowGatherTable, windowGeometry } from '../common/nn-conv-geometry.js';
import { readWindowAttrs, dimProduct } from '@tsge/ops/kernel-support';
import { floatOutput, readFloats } from '../common/nn-float-io.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

type PoolKind = 'avg' | 'max' | 'lp';

function runPool(ctx: KernelContextV1, kind: PoolKind): void {
  const x = requireTensor(ctx, 0);
  if (x.dims.length < 3) throw kernelError(ctx, `X must have rank >= 3, got [${x.dims}]`);
  const kernel = ctx.attrs.ints('kernel_shape', []);
  if (kernel.length !== x.dims.length - 2) throw kernelError(ctx, `kernel_shape must have ${x.dims.length - 2} values`);
  const w = readWindowAttrs(ctx.attrs, kernel);
  const g = windowGeometry(w, x.dims.slice(2));
  const table = windowGatherTable(g);
  const planes = (x.dims[0] as number) * (x.dims[1] as number);
  const inSize = dimProduct(g.inDims);
  const outSize = dimProduct(g.outDims);
  const kSize = dimProduct(kernel);
  const dims = [x.dims[0] as number, x.dims[1] as number, ...g.outDims];
  const xs = readFloats(x);
  const out = floatOutput(ctx, 0, dims, x.type);
  const y = out.data;
  if (kind === 'max') {
    const wantIndices = ctx.outputCount > 1;
    const indices = wantIndices ? (ctx.output(1, dims, 'int64').data as BigInt64Array) : undefined;
    const columnMajor = ctx.attrs.int('storage_order', 0) === 1;
    const spatialToStored = columnMajor ? columnMajorMap(g.inDims) : undefined;
    for (let p = 0; p < planes; p++) {
      const base = p * inSize;
      for (let o = 0; o < outSize; o++) {
        let best = Number.NEGATIVE_INFINITY;
        let bestIndex = -1;
        for (let k = 0; k < kSize; k++) {
          const idx = table[k * outSize + o] as number;
          if (idx < 0) continue;
          const v = xs[base + idx] as number;
          if (v > best || bestIndex < 0) {
            best = v;
            bestIndex = idx;
          }
        }
        y[p * outSize + o] = best;
        if (indices) {
          const stored = spatialToStored ? (spatialToStored[bestIndex] as number) : bestIndex;
          indices[p * outSize + o] = BigInt(bestIndex < 0 ? -1 : base + stored);
        }
      }
    }
  } else if (kind === 'avg') {
    const includePad = ctx.attrs.int('count_include_pad', 0) !== 0;
    for (let p = 0; p < planes; p++) {
      const base = p * inSize;
      for (let o = 0; o < outSize; o++) {
        let sum = 0;
        let count = 0;
        for (let k = 0; k < kSize; k++) {
          const idx = table[k * outSize + o] as number;
          if (idx >= 0) {
            sum += xs[base + idx] as number;
            count++;
          } else if (includePad && idx !== OUTSIDE_PADDING) count++;
        }
        y[p * outSize + o] = count > 0 ? sum / count : Number.NaN;
      }
    }
  } else {
    const pNorm = ctx.attrs.int('p', 2);
    for (let p = 0; p < planes; p++) {
      const base = p * inSize;
      for (let o = 0; o < outSize; o++) {
        let sum = 0;
        for (let k = 0; k < kSize; k++) {
          const idx = table[k * outSize + o] as number;
          if (idx >= 0) sum += Math.abs(xs[base + idx] as number) ** pNorm;
        }
        y[p * outSize + o] = sum ** (1 / pNorm);
      }
    }
  }
  out.commit();
}

/** Row-major spatial index → column-major spatial index (MaxPool storage_order 1). */
function columnMajorMap(dims: readonly number[]): Int32Array {
  const n = dimProduct(dims);
  const map = new Int32Array(n);
  const rank = dims.length;
  const idx = new Array<number>(rank).fill(0);
  for (let i = 0; i < n; i++) {
    let flat = 0;
    for (let a = rank - 1; a >= 0; a--) flat = flat * (dims[a] as number) + (idx[a] as number);
    map[i] = flat;
    for (let a = rank - 1; a >= 0; a--) {
      idx[a]++;
      if ((idx[a] as number) < (dims[a] as number)) break;
      idx[a] = 0;
    }
  }
  return map;
}

function runGlobalPool(ctx: KernelContextV1, kind: PoolKind): void {
  const x = requireTensor(ctx, 0);
  if (x.dims.length < 2) throw kernelError(ctx, `X must have rank >= 2, got [${x.dims}]`);
  const planes = (x.dims[0] as number) * (x.dims[1] as number);
  const size = dimProduct(x.dims, 2);
  const xs = readFloats(x);
  const dims = [x.dims[0] as number, x.dims[1] as number, ...x.dims.slice(2).map(() => 1)];
  const out = floatOutput(ctx, 0, dims, x.type);
  const y = out.data;
  const pNorm = ctx.attrs.int('p', 2);
  for (let p = 0; p < planes; p++) {
    const base = p * size;
    if (kind === 'max') {
      let best = Number.NEGATIVE_INFINITY;
      for (let i = 0; i < size; i++) {
        const v = xs[base + i] as number;
        if (v > best || Number.isNaN(v)) best = v;
      }
      y[p] = best;
    } else if (kind === 'avg') {
      let sum = 0;
      for (let i = 0; i < size; i++) sum += xs[base + i] as number;
      y[p] = sum / size;
    } else {
      let sum = 0;
      for (let i = 0; i < size; i++) sum += Math.abs(xs[base + i] as number) ** pNorm;
      y[p] = sum ** (1 / pNorm);
    }
  }
  out.commit();
}

export const poolKernels: readonly KernelV1[] = [
  defineKernel({ opType: 'AveragePool', compute: (ctx) => runPool(ctx, 'avg') }),
  defineKernel({ opType: 'MaxPool', compute: (ctx) => runPool(ctx, 'max') }),
  defineKernel({ opType: 'LpPool', compute: (ctx) => runPool(ctx, 'lp') }),
  defineKernel({ opType: 'GlobalAveragePool', compute: (ctx) => runGlobalPool(ctx, 'avg') }),
  defineKernel({ opType: 'GlobalMaxPool', compute: (ctx) => runGlobalPool(ctx, 'max') }),
  defineKernel({ opType: 'GlobalLpPool', compute: (ctx) => runGlobalPool(ctx, 'lp') }),
];

import { type KernelContextV1, type KernelV1, toNumberArray } from '@tsge/metadef';
import { defineKernel } from '@tsge/kernels-js/kernel-support';
import { fullPads, whereOf } from '@tsge/ops/kernel-support';
import { inMemory } from './simd-matmul.js';

/**
 * Pad, mode constant with pads ≥ 0, of float32 in device memory: the output is filled with the
 * value, then the input is copied in as contiguous blocks (everything from the innermost padded
 * axis inwards is one run, so a channel pad of NCHW is a single copy). Crops, other modes and
 * dtypes go to the reference, which also reports bad pads.
 */
export function padConstantKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: 'Pad',
    name: 'wasm-simd',
    dtypes: ['float32'],
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const x = ctx.tensor(0);
      const padsT = ctx.tensor(1);
      const axesT = ctx.tensor(3);
      const valueT = ctx.tensor(2);
      if (!memory || x?.type !== 'float32' || !padsT || !inMemory(memory, x) || ctx.attrs.string('mode', 'constant') !== 'constant')
        return reference.compute(ctx);
      const rank = x.dims.length;
      let begin: number[];
      let end: number[];
      try {
        [begin, end] = fullPads(toNumberArray(padsT), axesT ? toNumberArray(axesT) : undefined, rank, whereOf(ctx));
      } catch {
        return reference.compute(ctx);
      }
      if (rank === 0 || [...begin, ...end].some((p) => p < 0 || !Number.isInteger(p))) return reference.compute(ctx);
      const outDims = x.dims.map((d, i) => d + (begin[i] as number) + (end[i] as number));
      const y = ctx.output(0, outDims, 'float32');
      const X = x.data as Float32Array;
      const Y = y.data as Float32Array;
      if (!inMemory(memory, y) || (X.byteOffset < Y.byteOffset + Y.byteLength && Y.byteOffset < X.byteOffset + X.byteLength))
        return reference.compute(ctx);
      Y.fill(valueT && valueT.data.length > 0 ? ((valueT.data as Float32Array)[0] as number) : 0);
      if (X.length === 0) return;
      // the innermost padded axis k: x's axes k.. are one contiguous block of each outer index
      let k = rank - 1;
      while (k > 0 && begin[k] === 0 && end[k] === 0) k--;
      const block = x.dims.slice(k).reduce((a, b) => a * b, 1);
      const outer = x.dims.slice(0, k);
      // axes after k are not padded: the same element stride along k in x and y
      const inner = x.dims.slice(k + 1).reduce((a, b) => a * b, 1);
      const yStrides = outDims.map((_, i) => outDims.slice(i + 1).reduce((a, b) => a * b, 1));
      const offset = (begin[k] as number) * inner;
      const index = new Array<number>(k).fill(0);
      for (let from = 0; from < X.length; from += block) {
        let at = offset;
        for (let i = 0; i < k; i++) at += ((index[i] as number) + (begin[i] as number)) * (yStrides[i] as number);
        Y.set(X.subarray(from, from + block), at);
        for (let i = k - 1; i >= 0; i--) {
          index[i] = (index[i] as number) + 1;
          if ((index[i] as number) < (outer[i] as number)) break;
          index[i] = 0;
        }
      }
    },
  });
}

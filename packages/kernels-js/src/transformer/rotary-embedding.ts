/** RotaryEmbedding (opset 23): rotates the first rotary_embedding_dim features of each head. */
import type { KernelV1 } from '@tsge/metadef';
import { floatOutput, hasInput, readFloats } from '../common/nn-float-io.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

export const rotaryEmbeddingKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'RotaryEmbedding',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const xs = readFloats(x);
      const cosT = requireTensor(ctx, 1);
      const cos = readFloats(cosT);
      const sin = readFloats(requireTensor(ctx, 2));
      const positions = hasInput(ctx, 3) ? readFloats(requireTensor(ctx, 3)) : undefined;
      let batch: number;
      let seq: number;
      let heads: number;
      let headSize: number;
      const four = x.dims.length === 4;
      if (four) [batch, heads, seq, headSize] = x.dims as [number, number, number, number];
      else if (x.dims.length === 3) {
        heads = ctx.attrs.int('num_heads', 0);
        [batch, seq] = x.dims as [number, number];
        const hidden = x.dims[2] as number;
        if (heads <= 0 || hidden % heads !== 0) throw kernelError(ctx, `3-D input needs num_heads dividing ${hidden}`);
        headSize = hidden / heads;
      } else throw kernelError(ctx, `X must be 3-D or 4-D, got [${x.dims}]`);
      const rotDim = ctx.attrs.int('rotary_embedding_dim', 0) || headSize;
      const half = rotDim / 2;
      if (!Number.isInteger(half) || rotDim > headSize)
        throw kernelError(ctx, `rotary_embedding_dim ${rotDim} is invalid for head size ${headSize}`);
      const cacheWidth = cosT.dims[cosT.dims.length - 1] as number;
      if (cacheWidth !== half) throw kernelError(ctx, `cos_cache last dim ${cacheWidth} must be ${half}`);
      const maxPos = cosT.dims[0] as number;
      const interleaved = ctx.attrs.int('interleaved', 0) !== 0;
      const out = floatOutput(ctx, 0, x.dims, x.type);
      const y = out.data;
      for (let b = 0; b < batch; b++)
        for (let s = 0; s < seq; s++) {
          let cacheRow: number;
          if (positions) {
            const pos = positions[b * seq + s] as number;
            if (pos < 0 || pos >= maxPos) throw kernelError(ctx, `position id ${pos} outside the cache of ${maxPos}`);
            cacheRow = pos * half;
          } else cacheRow = (b * seq + s) * half;
          for (let h = 0; h < heads; h++) {
            const base = four ? ((b * heads + h) * seq + s) * headSize : ((b * seq + s) * heads + h) * headSize;
            for (let i = 0; i < half; i++) {
              const c = cos[cacheRow + i] as number;
              const sn = sin[cacheRow + i] as number;
              const i1 = interleaved ? base + 2 * i : base + i;
              const i2 = interleaved ? base + 2 * i + 1 : base + i + half;
              const x1 = xs[i1] as number;
              const x2 = xs[i2] as number;
              y[i1] = c * x1 - sn * x2;
              y[i2] = sn * x1 + c * x2;
            }
            for (let i = rotDim; i < headSize; i++) y[base + i] = xs[base + i] as number;
          }
        }
      out.commit();
    },
  }),
];

/**
 * com.microsoft RotaryEmbedding reference kernel: position ids are absolute ([B, S]) or one offset
 * ([1]) added to each token's index; the rotated pairs are (i, i + half) or, interleaved, (2i, 2i+1).
 */
import type { KernelV1 } from '@tsge/metadef';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { floatOutput, readFloats } from '../common/nn-float-io.js';
import { defineKernel } from '../define.js';

export const contribRotaryEmbeddingKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'RotaryEmbedding',
    domain: 'com.microsoft',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const posT = requireTensor(ctx, 1);
      const cosT = requireTensor(ctx, 2);
      const sinT = requireTensor(ctx, 3);
      if (ctx.attrs.int('is_packed_batching', 0) !== 0) throw kernelError(ctx, 'is_packed_batching is not supported');
      if (cosT.dims.length !== 2 || cosT.dims.join() !== sinT.dims.join())
        throw kernelError(
          ctx,
          `cos_cache and sin_cache must both be [max_position, rotary_dim / 2], got [${cosT.dims}] and [${sinT.dims}]`,
        );
      const [maxPos, half] = cosT.dims as [number, number];
      const rotDim = ctx.attrs.int('rotary_embedding_dim', 0) || 2 * half;
      if (rotDim !== 2 * half) throw kernelError(ctx, `rotary_embedding_dim ${rotDim} differs from twice cos_cache's width ${half}`);
      const four = x.dims.length === 4;
      let batch: number;
      let seq: number;
      let heads: number;
      let head: number;
      if (four) [batch, heads, seq, head] = x.dims as [number, number, number, number];
      else if (x.dims.length === 3) {
        [batch, seq] = x.dims as [number, number];
        const hidden = x.dims[2] as number;
        const numHeads = ctx.attrs.int('num_heads', 0);
        // without num_heads the head size is the rotary dimension
        heads = numHeads > 0 ? numHeads : hidden / rotDim;
        if (!Number.isInteger(heads) || heads <= 0 || hidden % heads !== 0)
          throw kernelError(ctx, `hidden size ${hidden} does not split into heads (num_heads ${numHeads}, rotary dim ${rotDim})`);
        head = hidden / heads;
      } else throw kernelError(ctx, `input must be 3-D or 4-D, got [${x.dims}]`);
      if (rotDim > head) throw kernelError(ctx, `rotary dimension ${rotDim} exceeds head size ${head}`);
      const ids = Array.from(posT.data as ArrayLike<number | bigint>, Number);
      const offset = ids.length === 1 ? (ids[0] as number) : undefined;
      if (offset === undefined && ids.length !== batch * seq)
        throw kernelError(ctx, `position_ids must be [1] or [${batch}, ${seq}], got [${posT.dims}]`);
      const interleaved = ctx.attrs.int('interleaved', 0) !== 0;
      const xs = readFloats(x);
      const cos = readFloats(cosT);
      const sin = readFloats(sinT);
      const out = floatOutput(ctx, 0, x.dims, x.type);
      const y = out.data;
      for (let b = 0; b < batch; b++)
        for (let s = 0; s < seq; s++) {
          const pos = offset !== undefined ? offset + s : (ids[b * seq + s] as number);
          if (pos < 0 || pos >= maxPos) throw kernelError(ctx, `position ${pos} is outside cos_cache (${maxPos} rows)`);
          for (let h = 0; h < heads; h++) {
            const base = four ? ((b * heads + h) * seq + s) * head : ((b * seq + s) * heads + h) * head;
            for (let i = 0; i < half; i++) {
              const c = cos[pos * half + i] as number;
              const sn = sin[pos * half + i] as number;
              const i1 = base + (interleaved ? 2 * i : i);
              const i2 = base + (interleaved ? 2 * i + 1 : i + half);
              const x1 = xs[i1] as number;
              const x2 = xs[i2] as number;
              y[i1] = x1 * c - x2 * sn;
              y[i2] = x2 * c + x1 * sn;
            }
            for (let i = rotDim; i < head; i++) y[base + i] = xs[base + i] as number;
          }
        }
      out.commit();
    },
  }),
];

import { type KernelContextV1, type KernelV1, TSGE_DOMAIN } from '@tsge/metadef';
import { defineKernel } from '@tsge/kernels-js/kernel-support';
import { SWIGLU } from '@tsge/ops/kernel-support';
import { simdKernels } from './kernel-modules.js';
import { inMemory } from './simd-matmul.js';

/**
 * tsge::SwiGLU on float32 in device memory from the SIMD elementwise functions, a row at a time:
 * y = sigmoid(gate), y = gate·y, y = up·y; with one input the row's halves are gate and up.
 */
export function simdSwigluKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: SWIGLU,
    domain: TSGE_DOMAIN,
    name: 'wasm-simd',
    dtypes: ['float32'],
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const x = ctx.tensor(0);
      const up = ctx.inputCount > 1 ? ctx.tensor(1) : undefined;
      const kernels = memory ? simdKernels(memory) : undefined;
      const rank = x?.dims.length ?? 0;
      if (!memory || !kernels || x?.type !== 'float32' || rank === 0 || !inMemory(memory, x, ...(up ? [up] : [])))
        return reference.compute(ctx);
      const width = x.dims[rank - 1] as number;
      const sameShape = up?.type === 'float32' && up.dims.length === rank && up.dims.every((d, i) => d === x.dims[i]);
      if ((up && !sameShape) || (!up && width % 2 !== 0)) return reference.compute(ctx);
      const half = up ? width : width / 2;
      const y = ctx.output(0, up ? x.dims : [...x.dims.slice(0, -1), half], 'float32');
      if (!inMemory(memory, y) || half === 0) return reference.compute(ctx);
      const g = (x.data as Float32Array).byteOffset;
      const out = (y.data as Float32Array).byteOffset;
      if (up) {
        const n = (y.data as Float32Array).length;
        kernels.sigmoid(g, out, n);
        kernels.mulVV(g, out, out, n);
        kernels.mulVV((up.data as Float32Array).byteOffset, out, out, n);
        return;
      }
      const rows = (y.data as Float32Array).length / half;
      for (let r = 0; r < rows; r++) {
        const gr = g + r * width * 4;
        const yr = out + r * half * 4;
        kernels.sigmoid(gr, yr, half);
        kernels.mulVV(gr, yr, yr, half);
        kernels.mulVV(gr + half * 4, yr, yr, half);
      }
    },
  });
}

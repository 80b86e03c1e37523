/** tsge::PackedMatMulInteger: MatMulInteger / QLinearMatMul over a B the compiler packed (its panels unpacked here). */
import { type HostTensor, type KernelContextV1, type KernelV1, TSGE_DOMAIN, readNumber } from '@tsge/metadef';
import {
  PACKED_MATMUL_INTEGER,
  PACKED_WEIGHT,
  type PackedPanelsShape,
  dimProduct,
  packedPanelsMismatch,
  packedPanelsShape,
  unpackIntPanels,
} from '@tsge/ops/kernel-support';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { integerRange, roundHalfEven } from '../common/nn-quant.js';
import { defineKernel } from '../define.js';

/** The panel layout of the node's packed B, checked against the tensor (TSGE-E4003 naming the node when it does not fit). */
export function packedPanelsOf(ctx: KernelContextV1, b: HostTensor): PackedPanelsShape {
  const shape = packedPanelsShape(ctx.attrs.has(PACKED_WEIGHT) ? ctx.attrs.ints(PACKED_WEIGHT) : []);
  if (typeof shape === 'string') throw kernelError(ctx, `${PACKED_WEIGHT} ${shape}`);
  if (b.type !== 'int16') throw kernelError(ctx, `the packed B is int16, got ${b.type}`);
  const why = packedPanelsMismatch(shape, b.dims);
  if (why) throw kernelError(ctx, why);
  return shape;
}

/** One value per index from a tensor of 1 or `count` elements. */
function perIndex(ctx: KernelContextV1, t: HostTensor | undefined, count: number, what: string): (i: number) => number {
  if (!t || t.data.length === 0) return () => 0;
  if (t.data.length !== 1 && t.data.length !== count)
    throw kernelError(ctx, `${what} has ${t.data.length} elements, expected 1 or ${count}`);
  return t.data.length === 1 ? () => readNumber(t, 0) : (i) => readNumber(t, i);
}

export const packedMatMulIntegerKernel: KernelV1 = defineKernel({
  opType: PACKED_MATMUL_INTEGER,
  domain: TSGE_DOMAIN,
  compute(ctx) {
    const a = requireTensor(ctx, 0);
    const shape = packedPanelsOf(ctx, requireTensor(ctx, 1));
    const { k, n } = shape;
    if ((a.type !== 'uint8' && a.type !== 'int8') || a.dims.length < 2 || a.dims[a.dims.length - 1] !== k)
      throw kernelError(ctx, `A is ${a.type} [${a.dims.join(', ')}], expected bytes [..., M, ${k}]`);
    const m = a.dims[a.dims.length - 2] as number;
    const batches = dimProduct(a.dims.slice(0, -2));
    const b = unpackIntPanels(requireTensor(ctx, 1).data as Int16Array, shape);
    const az = perIndex(ctx, ctx.tensor(2), m, 'a_zero_point');
    const yzT = ctx.tensor(6);
    const dims = [...a.dims.slice(0, -1), n];
    const ad = a.data as Uint8Array | Int8Array;
    const acc = new Int32Array(batches * m * n);
    for (let bi = 0; bi < batches; bi++)
      for (let i = 0; i < m; i++) {
        const z = az(i);
        const row = (bi * m + i) * k;
        for (let j = 0; j < n; j++) {
          let s = 0;
          for (let p = 0; p < k; p++) s += ((ad[row + p] as number) - z) * (b[p * n + j] as number);
          acc[(bi * m + i) * n + j] = s;
        }
      }
    if (!yzT) {
      (ctx.output(0, dims, 'int32').data as Int32Array).set(acc);
      return;
    }
    // QLinearMatMul's requantization, as its reference computes it
    const as = perIndex(ctx, requireTensor(ctx, 3), m, 'a_scale');
    const bs = perIndex(ctx, requireTensor(ctx, 4), n, 'b_scale');
    const ys = readNumber(requireTensor(ctx, 5), 0);
    const yz = readNumber(yzT, 0);
    const [lo, hi] = integerRange(yzT.type);
    const y = ctx.output(0, dims, yzT.type).data as Uint8Array | Int8Array;
    for (let e = 0; e < acc.length; e++) {
      const i = Math.floor(e / n) % m;
      const scale = Math.fround(Math.fround(as(i) * bs(e % n)) / ys);
      const q = roundHalfEven(Math.fround(Math.fround(acc[e] as number) * scale)) + yz;
      y[e] = q < lo ? lo : Math.min(q, hi);
    }
  },
});

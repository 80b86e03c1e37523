/** MatMul (batched, broadcasting, 1-D rules), MatMulInteger and Gemm. */
import type { HostTensor, KernelContextV1, KernelV1 } from '@tsge/metadef';
import { broadcastIndexMap } from '../common/broadcast.js';
import { broadcastStaticDims } from '../common/math-broadcast-rows.js';
import { gemmFloat32, gemmInto, transposeMatrix } from '../common/math-gemm.js';
import type { NumberArray } from '@tsge/ops/kernel-support';
import { numberOutput, numbersOf } from '../common/math-values.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

interface MatmulPlan {
  readonly outDims: number[];
  readonly m: number;
  readonly k: number;
  readonly n: number;
  readonly batches: number;
  readonly aBatch: Int32Array;
  readonly bBatch: Int32Array;
}

function planMatmul(ctx: KernelContextV1, a: readonly number[], b: readonly number[]): MatmulPlan {
  if (a.length === 0 || b.length === 0) throw kernelError(ctx, 'inputs must have rank ≥ 1');
  const a2 = a.length === 1 ? [1, a[0]!] : a;
  const b2 = b.length === 1 ? [b[0]!, 1] : b;
  const m = a2[a2.length - 2]!;
  const k = a2[a2.length - 1]!;
  const n = b2[b2.length - 1]!;
  if (b2[b2.length - 2] !== k) throw kernelError(ctx, `inner dims ${k} and ${b2[b2.length - 2]} differ`);
  const aBatchDims = a2.slice(0, -2);
  const bBatchDims = b2.slice(0, -2);
  const batchDims = broadcastStaticDims([aBatchDims, bBatchDims]);
  if (!batchDims) throw kernelError(ctx, 'batch dims do not broadcast');
  const outDims = [...batchDims];
  if (a.length !== 1) outDims.push(m);
  if (b.length !== 1) outDims.push(n);
  const aBatch = broadcastIndexMap(aBatchDims, batchDims);
  return { outDims, m, k, n, batches: aBatch.length, aBatch, bBatch: broadcastIndexMap(bBatchDims, batchDims) };
}

function runMatmul(plan: MatmulPlan, a: NumberArray, b: NumberArray, c: NumberArray): void {
  const { m, k, n } = plan;
  const row = new Float64Array(2 * n);
  const float32 = a instanceof Float32Array && b instanceof Float32Array && c instanceof Float32Array;
  for (let t = 0; t < plan.batches; t++) {
    if (float32) gemmFloat32(a, plan.aBatch[t]! * m * k, b, plan.bBatch[t]! * k * n, c, t * m * n, plan, row);
    else gemmInto(a, plan.aBatch[t]! * m * k, b, plan.bBatch[t]! * k * n, c, t * m * n, plan, row);
  }
}

function zeroPointShifted(ctx: KernelContextV1, x: HostTensor, zero: HostTensor | undefined, perRow: boolean): Float64Array {
  const src = numbersOf(x);
  const out = Float64Array.from(src);
  if (!zero || zero.data.length === 0) return out;
  const z = numbersOf(zero);
  if (z.length === 1) {
    for (let i = 0; i < out.length; i++) out[i]! -= z[0]!;
    return out;
  }
  // per-row zero points of A (length M) or per-column ones of B (length N)
  const rank = x.dims.length;
  const rows = x.dims[rank - 2] ?? 1;
  const cols = x.dims[rank - 1]!;
  const size = perRow ? rows : cols;
  if (z.length % size !== 0) throw kernelError(ctx, `zero point of length ${z.length} does not match dim ${size}`);
  for (let i = 0; i < out.length; i++) {
    const r = Math.floor(i / cols) % rows;
    const c = i % cols;
    const matrix = Math.floor(i / (rows * cols));
    const index = (perRow ? r : c) + (z.length > size ? matrix * size : 0);
    out[i]! -= z[index]!;
  }
  return out;
}

export const matmulKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'MatMul',
    compute: (ctx) => {
      const a = requireTensor(ctx, 0);
      const b = requireTensor(ctx, 1);
      const plan = planMatmul(ctx, a.dims, b.dims);
      const out = numberOutput(ctx, 0, plan.outDims, a.type);
      runMatmul(plan, numbersOf(a), numbersOf(b), out.values);
      out.commit();
    },
  }),
  defineKernel({
    opType: 'MatMulInteger',
    compute: (ctx) => {
      const a = requireTensor(ctx, 0);
      const b = requireTensor(ctx, 1);
      const plan = planMatmul(ctx, a.dims, b.dims);
      const out = ctx.output(0, plan.outDims, 'int32');
      runMatmul(
        plan,
        zeroPointShifted(ctx, a, ctx.tensor(2), true),
        zeroPointShifted(ctx, b, ctx.tensor(3), false),
        out.data as Int32Array,
      );
    },
  }),
  defineKernel({
    opType: 'Gemm',
    compute: (ctx) => {
      const a = requireTensor(ctx, 0);
      const b = requireTensor(ctx, 1);
      const c = ctx.tensor(2);
      if (a.dims.length !== 2 || b.dims.length !== 2) throw kernelError(ctx, 'A and B must be 2-D');
      const alpha = ctx.attrs.float('alpha', 1);
      const beta = ctx.attrs.float('beta', 1);
      const ta = ctx.attrs.int('transA', 0) !== 0;
      const tb = ctx.attrs.int('transB', 0) !== 0;
      const [m, k] = ta ? [a.dims[1]!, a.dims[0]!] : [a.dims[0]!, a.dims[1]!];
      const [kb, n] = tb ? [b.dims[1]!, b.dims[0]!] : [b.dims[0]!, b.dims[1]!];
      if (k !== kb) throw kernelError(ctx, `inner dims ${k} and ${kb} differ`);
      const A = ta ? transposeMatrix(numbersOf(a), k, m) : numbersOf(a);
      const B = tb ? transposeMatrix(numbersOf(b), n, k) : numbersOf(b);
      const float32 = A instanceof Float32Array && B instanceof Float32Array;
      const product = float32 ? new Float32Array(m * n) : new Float64Array(m * n);
      if (float32) gemmFloat32(A, 0, B, 0, product as Float32Array, 0, { m, k, n }, new Float64Array(2 * n));
      else gemmInto(A, 0, B, 0, product, 0, { m, k, n }, new Float64Array(n));
      if (alpha !== 1) for (let i = 0; i < product.length; i++) product[i]! *= alpha;
      if (c && beta !== 0) {
        const cDims = broadcastStaticDims([c.dims, [m, n]]);
        if (cDims?.length !== 2 || cDims[0] !== m || cDims[1] !== n)
          throw kernelError(ctx, `C [${c.dims.join(',')}] does not broadcast to [${m},${n}]`);
        const map = broadcastIndexMap(c.dims, [m, n]);
        const C = numbersOf(c);
        for (let i = 0; i < product.length; i++) product[i]! += beta * C[map[i]!]!;
      }
      const out = numberOutput(ctx, 0, [m, n], a.type);
      out.values.set(product);
      out.commit();
    },
  }),
];

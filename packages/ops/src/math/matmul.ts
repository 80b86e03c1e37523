/** MatMul (batched, broadcasting, 1-D rules), MatMulInteger and Gemm. */
import type { Dim, HostTensor, InferenceContextV1, KernelContextV1, KernelV1, OpDefinitionV1, Shape } from '@tsge/metadef';
import { InferenceError, broadcastShapes, isUnknownRank } from '@tsge/metadef';
import { broadcastIndexMap } from '../common/broadcast.js';
import { broadcastStaticDims } from '../common/math-broadcast-rows.js';
import { gemmFloat32, gemmInto, transposeMatrix } from '../common/math-gemm.js';
import { type NumberArray, kernelError, numberOutput, numbersOf, requireTensor } from '../common/math-values.js';
import { requireInput } from '../common/infer-helpers.js';
import { defineKernel, defineOp, param } from '../define.js';
import { FLOATS } from './op-types.js';

function dimsConflict(a: Dim, b: Dim): boolean {
  return typeof a === 'number' && typeof b === 'number' && a >= 0 && b >= 0 && a !== b;
}

/** MatMul output shape from input shapes (numpy matmul rules). */
export function matmulShape(ctx: InferenceContextV1, a: Shape, b: Shape): Shape {
  if (isUnknownRank(a) || isUnknownRank(b)) return [-2];
  if (a.length === 0 || b.length === 0) throw new InferenceError(`${ctx.opType} ${ctx.nodeName}: inputs must have rank ≥ 1`);
  const a2 = a.length === 1 ? [1, a[0]!] : a;
  const b2 = b.length === 1 ? [b[0]!, 1] : b;
  const k1 = a2[a2.length - 1]!;
  const k2 = b2[b2.length - 2]!;
  if (dimsConflict(k1, k2)) throw new InferenceError(`${ctx.opType} ${ctx.nodeName}: inner dims ${k1} and ${k2} differ`);
  const batch = broadcastShapes(a2.slice(0, -2), b2.slice(0, -2));
  if (!batch) throw new InferenceError(`${ctx.opType} ${ctx.nodeName}: batch dims do not broadcast`);
  const out: Dim[] = [...batch];
  if (a.length !== 1) out.push(a2[a2.length - 2]!);
  if (b.length !== 1) out.push(b2[b2.length - 1]!);
  return out;
}

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

export const matmulOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'MatMul',
    sinceVersion: 13,
    inputs: [param.required('A', 'T'), param.required('B', 'T')],
    outputs: [param.required('Y', 'T')],
    typeConstraints: [{ name: 'T', allowed: [...FLOATS, 'int32', 'int64', 'uint32', 'uint64'] }],
    infer: (ctx) => {
      const a = requireInput(ctx, 0);
      ctx.setOutput(0, { dtype: a.dtype, shape: matmulShape(ctx, a.shape, requireInput(ctx, 1).shape) });
    },
  }),
  defineOp({
    type: 'MatMulInteger',
    sinceVersion: 10,
    inputs: [
      param.required('A', 'T1'),
      param.required('B', 'T2'),
      param.optional('a_zero_point', 'T1'),
      param.optional('b_zero_point', 'T2'),
    ],
    outputs: [param.required('Y', 'T3')],
    typeConstraints: [
      { name: 'T1', allowed: ['int8', 'uint8'] },
      { name: 'T2', allowed: ['int8', 'uint8'] },
      { name: 'T3', allowed: ['int32'] },
    ],
    infer: (ctx) => ctx.setOutput(0, { dtype: 'int32', shape: matmulShape(ctx, requireInput(ctx, 0).shape, requireInput(ctx, 1).shape) }),
  }),
  defineOp({
    type: 'Gemm',
    sinceVersion: 13,
    inputs: [param.required('A', 'T'), param.required('B', 'T'), param.optional('C', 'T')],
    outputs: [param.required('Y', 'T')],
    attributes: [
      { name: 'alpha', kind: 'float', default: { kind: 'float', value: 1 } },
      { name: 'beta', kind: 'float', default: { kind: 'float', value: 1 } },
      { name: 'transA', kind: 'int', default: { kind: 'int', value: 0 } },
      { name: 'transB', kind: 'int', default: { kind: 'int', value: 0 } },
    ],
    typeConstraints: [{ name: 'T', allowed: [...FLOATS, 'int32', 'int64', 'uint32', 'uint64'] }],
    infer: (ctx) => {
      const a = requireInput(ctx, 0);
      const b = requireInput(ctx, 1);
      if (isUnknownRank(a.shape) || isUnknownRank(b.shape)) return ctx.setOutput(0, { dtype: a.dtype, shape: [-1, -1] });
      if (a.shape.length !== 2 || b.shape.length !== 2) throw new InferenceError(`Gemm ${ctx.nodeName}: A and B must be 2-D`);
      const ta = ctx.attrs.int('transA', 0) !== 0;
      const tb = ctx.attrs.int('transB', 0) !== 0;
      const [m, ka] = ta ? [a.shape[1]!, a.shape[0]!] : [a.shape[0]!, a.shape[1]!];
      const [kb, n] = tb ? [b.shape[1]!, b.shape[0]!] : [b.shape[0]!, b.shape[1]!];
      if (dimsConflict(ka, kb)) throw new InferenceError(`Gemm ${ctx.nodeName}: inner dims ${ka} and ${kb} differ`);
      ctx.setOutput(0, { dtype: a.dtype, shape: [m, n] });
    },
  }),
];

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

/** MatMul (batched, broadcasting, 1-D rules), MatMulInteger and Gemm. */
import {
  type Dim,
  type InferenceContextV1,
  type OpDefinitionV1,
  type Shape,
  InferenceError,
  broadcastShapes,
  isUnknownRank,
} from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';
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

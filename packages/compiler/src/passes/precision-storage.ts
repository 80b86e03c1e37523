import type { Graph, Node } from '@tsge/metadef';
import {
  ATTR_VALUE,
  CONST,
  attr,
  bfloat16ToNumber,
  constValueOf,
  createTensor,
  float16ToNumber,
  numberToBfloat16,
  numberToFloat16,
  topologicalSort,
} from '@tsge/metadef';
import { FUSED_CONV, FUSED_GEMM, FUSED_MATMUL } from '@tsge/ops';
import { definePass } from '../pass-manager.js';
import { FP16_OPS } from './precision-fp16.js';

/** The attribute on a float32 Const whose weights WEIGHTS stores narrower (build/weights.ts widens them at load). */
export const STORAGE_DTYPE = '_storage_dtype';

/** GE's matrix ("cube") operators: the ones `allow_fp32_to_fp16` lowers and mixed precision always may. */
const MATRIX_OPS: ReadonlySet<string> = new Set(['Conv', 'ConvTranspose', 'Gemm', 'MatMul', FUSED_CONV, FUSED_GEMM, FUSED_MATMUL]);

/**
 * Mixed precision's block list (GE's `precision_reduce: false`): ops whose accuracy suffers in float16
 * (normalisations, softmax, reductions, exponentials). Every other float op is on the grey list and
 * follows its first input's producer.
 */
const KEEP_FP32_OPS: ReadonlySet<string> = new Set([
  'BatchNormalization',
  'InstanceNormalization',
  'LayerNormalization',
  'Softmax',
  'LogSoftmax',
  'ReduceMean',
  'ReduceSum',
  'ReduceMax',
  'ReduceL2',
  'ReduceLogSumExp',
  'Exp',
  'Log',
  'Pow',
  'Sqrt',
  'Reciprocal',
  'Div',
  'Erf',
]);

/** Which ops a precision mode lowers: the matrix ops, every op that has float16 semantics, or GE's mixed rule. */
export type PrecisionScope = 'matrix' | 'all' | 'mixed';

/**
 * The nodes a mode lowers to the narrow type. Mixed: matrix ops always, block-listed ops never,
 * the rest when the producer of their first input was lowered (GE's allow/deny/grey lists).
 */
export function loweredNodes(graph: Graph, scope: PrecisionScope): Set<Node> {
  const sorted = topologicalSort(graph);
  const lowered = new Set<Node>();
  if (!sorted.ok) return lowered;
  for (const node of sorted.order) {
    const type = node.type;
    if (scope === 'matrix') {
      if (MATRIX_OPS.has(type)) lowered.add(node);
    } else if (scope === 'all') {
      if (MATRIX_OPS.has(type) || FP16_OPS.has(type)) lowered.add(node);
    } else if (MATRIX_OPS.has(type)) lowered.add(node);
    else if (!KEEP_FP32_OPS.has(type) && FP16_OPS.has(type)) {
      const first = node.inData[0]?.peer?.node;
      if (first && lowered.has(first)) lowered.add(node);
    }
  }
  return lowered;
}

/** The float32 values rounded to what `dtype` holds (so folding sees what the kernels will read). */
function rounded(data: Float32Array, dtype: 'float16' | 'bfloat16'): Float32Array {
  const out = new Float32Array(data.length);
  if (dtype === 'float16') for (let i = 0; i < data.length; i++) out[i] = float16ToNumber(numberToFloat16(data[i] as number));
  else for (let i = 0; i < data.length; i++) out[i] = bfloat16ToNumber(numberToBfloat16(data[i] as number));
  return out;
}

/**
 * Weight storage for a target whose kernels compute in float32 (wasm-simd): float32 constants that
 * only lowered nodes read are rounded to `dtype` and marked `_storage_dtype`, so WEIGHTS stores
 * them in half the bytes and the reader widens them at load; the graph and its kernels stay
 * float32 (SIMD), so only the weights carry the narrow precision.
 */
export function precisionStoragePass(scope: PrecisionScope, dtype: 'float16' | 'bfloat16') {
  return definePass({
    name: `precision-storage-${dtype}`,
    level: 0,
    run(graph, ctx) {
      const lowered = loweredNodes(graph, scope);
      let marked = 0;
      for (const node of graph.nodes) {
        if (node.type !== CONST || node.opDesc.attrs.has(STORAGE_DTYPE)) continue;
        const t = constValueOf(node);
        if (t?.type !== 'float32' || !(t.data instanceof Float32Array)) continue;
        const readers = (node.outData[0]?.peers ?? []).map((p) => p.node);
        if (readers.length === 0 || !readers.every((n) => lowered.has(n))) continue;
        node.opDesc.attrs.set(ATTR_VALUE, attr.tensor(createTensor('float32', t.dims, rounded(t.data, dtype))));
        node.opDesc.attrs.set(STORAGE_DTYPE, attr.dtype(dtype));
        marked++;
      }
      if (marked) ctx.count(`${dtype}-weights`, marked);
      return { changed: marked > 0 };
    },
  });
}

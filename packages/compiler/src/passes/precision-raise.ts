import type { DataType, Node, OutDataAnchor } from '@tsge/metadef';
import { CONST, attr, bfloat16ToNumber, constValueOf, createTensor, float16ToNumber, topologicalSort } from '@tsge/metadef';
import { addConst } from '../graph-utils.js';
import { definePass } from '../pass-manager.js';
import { FP16_OPS, addCast } from './precision-fp16.js';
import { STORAGE_DTYPE } from './precision-storage.js';

type Narrow = 'float16' | 'bfloat16';
const isNarrow = (d: DataType | undefined): d is Narrow => d === 'float16' || d === 'bfloat16';
const dtypeOf = (a: OutDataAnchor | undefined): DataType | undefined => a?.node.opDesc.outputDescs[a.index]?.dtype;

/**
 * force_fp32: ops that compute in float16 or bfloat16 compute in float32 (GE: "if the original
 * graph is float16, it is converted to float32 too"). Their narrow constants become float32
 * constants marked `_storage_dtype` (exact: WEIGHTS keeps them narrow, the reader widens them at
 * load); other narrow inputs get a Cast to float32 and outputs read outside the region a Cast
 * back, so the model's inputs and outputs keep their types.
 */
export const precisionRaisePass = definePass({
  name: 'precision-raise-fp32',
  level: 0,
  run(graph, ctx) {
    const sorted = topologicalSort(graph);
    if (!sorted.ok) return { changed: false };
    const raised = new Set<Node>();
    for (const node of sorted.order) {
      if (!FP16_OPS.has(node.type) || node.opDesc.domain !== 'ai.onnx' || node.opDesc.subgraphNames.length > 0) continue;
      if (node.opDesc.outputDescs.some((d) => isNarrow(d.dtype))) raised.add(node);
    }
    const wide = new Map<OutDataAnchor, OutDataAnchor>();
    for (const node of raised) {
      for (const input of node.inData) {
        const source = input.peer;
        if (!source || raised.has(source.node)) continue;
        const from = dtypeOf(source);
        if (!isNarrow(from)) continue;
        let anchor = wide.get(source);
        if (!anchor) {
          const t = source.node.type === CONST ? constValueOf(source.node) : undefined;
          if (t && t.type === from && t.data instanceof Uint16Array) {
            const widen = from === 'float16' ? float16ToNumber : bfloat16ToNumber;
            const values = Float32Array.from(t.data, widen);
            const c = addConst(graph, `${source.node.name}_fp32`, createTensor('float32', t.dims, values));
            c.opDesc.attrs.set(STORAGE_DTYPE, attr.dtype(from));
            anchor = c.outData[0] as OutDataAnchor;
          } else anchor = addCast(graph, source, 'float32').outData[0] as OutDataAnchor;
          wide.set(source, anchor);
        }
        graph.link(anchor, input);
      }
    }
    for (const node of raised) {
      node.opDesc.outputDescs.forEach((d, i) => {
        if (!isNarrow(d.dtype)) return;
        const narrow = d.dtype;
        node.opDesc.outputDescs[i] = { ...d, dtype: 'float32' };
        const out = node.outData[i] as OutDataAnchor;
        const outside = out.peers.filter((p) => !raised.has(p.node));
        if (outside.length === 0) return;
        const back = addCast(graph, out, narrow);
        for (const p of outside) graph.link(back.outData[0] as OutDataAnchor, p);
      });
    }
    for (const n of graph.nodes) ctx.revisit(n);
    if (raised.size) ctx.count('fp32-raised-nodes', raised.size);
    return { changed: raised.size > 0 };
  },
});

import type { GraphPassV1, KernelRegistry, Node, OutDataAnchor } from '@tsge/metadef';
import { CONST, TSGE_DOMAIN, attr, constValueOf, createOpDesc, createTensor } from '@tsge/metadef';
import { FUSED_MATMUL, PACKED_MATMUL, PACKED_MATMUL_PANEL } from '@tsge/ops';
import { addConst, uniqueName } from '../graph-utils.js';
import { STORAGE_DTYPE } from './precision-storage.js';

/** Smallest K and N worth packing (a smaller product is cheaper than a panel's padding). */
const MIN_DIM = 8;
/** FusedMatMul's epilogue attributes, which PackedMatMul shares (a generated epilogue's too). */
const EPILOGUE_ATTRS = ['activation', 'activation_params', 'description', 'fused_nodes'] as const;

/** B[K, N] (row-major) as 8-column panels [⌈N/8⌉, K, 8], zeros past N. */
export function packPanels(b: Float32Array, k: number, n: number): Float32Array {
  const P = PACKED_MATMUL_PANEL;
  const panels = Math.ceil(n / P);
  const out = new Float32Array(panels * k * P);
  for (let q = 0; q < panels; q++) {
    const width = Math.min(P, n - q * P);
    for (let p = 0; p < k; p++) out.set(b.subarray(p * n + q * P, p * n + q * P + width), (q * k + p) * P);
  }
  return out;
}

function isPackable(node: Node): boolean {
  if (node.type === 'MatMul') return node.opDesc.domain === '' || node.opDesc.domain === 'ai.onnx';
  return node.type === FUSED_MATMUL && node.opDesc.domain === TSGE_DOMAIN;
}

/** The constant B[K, N] of a MatMul/FusedMatMul whose A is float32 of rank ≥ 2, when every use of B is such a node's B. */
function packableWeight(node: Node): { source: Node; b: Float32Array; k: number; n: number } | undefined {
  if (!isPackable(node)) return undefined;
  const a = node.inData[0]?.peer;
  const bAnchor = node.inData[1]?.peer;
  if (!a || !bAnchor || bAnchor.node.type !== CONST) return undefined;
  const aDesc = a.node.opDesc.outputDescs[a.index];
  if (aDesc?.dtype !== 'float32' || !Array.isArray(aDesc.shape) || aDesc.shape.length < 2) return undefined;
  const value = constValueOf(bAnchor.node);
  if (value?.type !== 'float32' || value.dims.length !== 2) return undefined;
  const [k, n] = value.dims as [number, number];
  if (k < MIN_DIM || n < MIN_DIM) return undefined;
  const users = bAnchor.peers;
  if (!users.every((u) => u.index === 1 && isPackable(u.node))) return undefined;
  return { source: bAnchor.node, b: value.data as Float32Array, k, n };
}

/**
 * Stores the constant B of MatMul / tsge::FusedMatMul in the panels the CPU's GEMM and GEMV kernels
 * read (tsge::PackedMatMul), so the `.om` carries packed weights: nothing packs B per run, and a
 * decode step streams each panel once. A B shared with other ops stays as it is (packing it would
 * store the weight twice). Runs last among the rewrites, on targets with a SIMD PackedMatMul.
 */
export function packMatMulWeightsPass(kernels: KernelRegistry, target: string): GraphPassV1 {
  return {
    specVersion: 'v1',
    name: 'pack-matmul-weights',
    level: 2,
    run(graph, ctx) {
      if (target === 'js' || kernels.find(PACKED_MATMUL, TSGE_DOMAIN, 'float32', ['wasm-simd'])?.name !== 'wasm-simd')
        return { changed: false };
      const packed = new Map<Node, OutDataAnchor>();
      let changed = false;
      for (const node of [...graph.nodes]) {
        const w = packableWeight(node);
        if (!w) continue;
        let panels = packed.get(w.source);
        if (!panels) {
          const data = packPanels(w.b, w.k, w.n);
          const dims = [Math.ceil(w.n / PACKED_MATMUL_PANEL), w.k, PACKED_MATMUL_PANEL];
          const constNode = addConst(graph, `${w.source.name}_panels`, createTensor('float32', dims, data));
          // a weight the precision mode stores narrower stays narrower once packed
          const storage = w.source.opDesc.attrs.get(STORAGE_DTYPE);
          if (storage) constNode.opDesc.attrs.set(STORAGE_DTYPE, storage);
          panels = constNode.outData[0] as OutDataAnchor;
          packed.set(w.source, panels);
        }
        // A, the panels, the bias, then a generated epilogue's inputs (from index 3)
        const inputs = [node.inData[0]?.peer, panels, ...node.inData.slice(2).map((a) => a.peer)];
        const attrs = node.opDesc.attrs;
        const desc = createOpDesc({
          name: uniqueName(graph, `${node.name}_packed`),
          type: PACKED_MATMUL,
          domain: TSGE_DOMAIN,
          attrs: [
            ['n', attr.int(w.n)] as const,
            ...EPILOGUE_ATTRS.flatMap((name) => {
              const value = attrs.get(name);
              return value ? [[name, value] as const] : [];
            }),
          ],
          outputDescs: [...node.opDesc.outputDescs.slice(0, 1)],
          outputNames: [node.opDesc.outputNames[0] ?? node.name],
        });
        let slots = inputs.length;
        while (slots > 2 && !inputs[slots - 1]) slots--;
        desc.inputDescs.push(...node.opDesc.inputDescs.slice(0, slots));
        const replacement = graph.addNode(desc, { inputs: slots, outputs: 1 });
        for (let i = 0; i < slots; i++) {
          const a = inputs[i];
          if (a) graph.link(a, replacement.inData[i] as Node['inData'][number]);
        }
        graph.replaceAllUses(node.outData[0] as OutDataAnchor, replacement.outData[0] as OutDataAnchor);
        graph.removeNode(node);
        ctx.count('matmul-weights-packed');
        changed = true;
      }
      for (const source of packed.keys()) if (source.outData.every((o) => o.peers.length === 0)) graph.removeNode(source);
      return { changed };
    },
  };
}

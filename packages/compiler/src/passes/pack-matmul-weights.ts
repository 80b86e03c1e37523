import type { Graph, GraphPassV1, KernelRegistry, Node, OutDataAnchor } from '@tsge/metadef';
import { CONST, TSGE_DOMAIN, attr, constValueOf, createOpDesc, createTensor, createTensorDesc } from '@tsge/metadef';
import { FUSED_GEMM, FUSED_MATMUL, PACKED_MATMUL, PACKED_MATMUL_PANEL } from '@tsge/ops';
import { addConst, uniqueName } from '../graph-utils.js';
import { STORAGE_DTYPE } from './precision-storage.js';

/** Smallest K and N worth packing (a smaller product is cheaper than a panel's padding). */
const MIN_DIM = 8;
/**
 * Rows of A up to which a Gemm with transB keeps B as stored: its [N, K] rows are what the
 * dot-product kernel streams, one contiguous pass, and that beat the panel GEMV on one row
 * (2048×1000: 0.20 ms against 0.29; 4096×4096 went the other way, 9.3 against 7.2, but such
 * layers are rare in Gemm models). From 8 rows the panels tie, at 64 they are 1.5× faster.
 */
const STORED_LAYOUT_MAX_ROWS = 4;
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

/** Gemm's B (B[K, N], or Bᵀ[N, K] with transB) times alpha, as the panels of `packPanels`. */
export function packGemmPanels(b: Float32Array, k: number, n: number, transB: boolean, alpha: number): Float32Array {
  let rowMajor = b;
  if (transB) {
    rowMajor = new Float32Array(k * n);
    for (let j = 0; j < n; j++) for (let p = 0; p < k; p++) rowMajor[p * n + j] = b[j * k + p] as number;
  }
  const out = packPanels(rowMajor, k, n);
  if (alpha !== 1) for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) * alpha;
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

/** An int or float attribute of a node, or `fallback`. */
function numberAttr(node: Node, name: string, fallback: number): number {
  const a = node.opDesc.attrs.get(name);
  return a?.kind === 'int' || a?.kind === 'float' ? a.value : fallback;
}

/**
 * A Gemm / tsge::FusedGemm as a PackedMatMul: Y[M, N] = A[M, K] · (alpha·op(B))[K, N] + beta·C when
 * A is float32 of rank 2 (transA = 0), B is a constant only this node reads (transposed and scaled
 * while packing), and C is absent, multiplied by 0 or a constant over N (the bias). A transposed B
 * read by a few rows stays as stored (STORED_LAYOUT_MAX_ROWS).
 */
function packableGemm(
  node: Node,
): { b: Float32Array; k: number; n: number; transB: boolean; alpha: number; bias?: Float32Array } | undefined {
  const domainOk =
    node.type === 'Gemm' ? node.opDesc.domain === '' || node.opDesc.domain === 'ai.onnx' : node.opDesc.domain === TSGE_DOMAIN;
  if ((node.type !== 'Gemm' && node.type !== FUSED_GEMM) || !domainOk || numberAttr(node, 'transA', 0) !== 0) return undefined;
  if (node.inData.length > 3 || node.opDesc.attrs.has('description')) return undefined;
  const a = node.inData[0]?.peer;
  const bAnchor = node.inData[1]?.peer;
  if (!a || !bAnchor || bAnchor.node.type !== CONST || bAnchor.peers.length !== 1) return undefined;
  const aDesc = a.node.opDesc.outputDescs[a.index];
  if (aDesc?.dtype !== 'float32' || !Array.isArray(aDesc.shape) || aDesc.shape.length !== 2) return undefined;
  const value = constValueOf(bAnchor.node);
  if (value?.type !== 'float32' || value.dims.length !== 2) return undefined;
  const transB = numberAttr(node, 'transB', 0) !== 0;
  const rows = aDesc.shape[0];
  if (transB && typeof rows === 'number' && rows >= 0 && rows <= STORED_LAYOUT_MAX_ROWS) return undefined;
  const [k, n] = (transB ? [value.dims[1], value.dims[0]] : value.dims) as [number, number];
  if (k < MIN_DIM || n < MIN_DIM) return undefined;
  const alpha = numberAttr(node, 'alpha', 1);
  const beta = numberAttr(node, 'beta', 1);
  const cAnchor = node.inData[2]?.peer;
  if (!cAnchor || beta === 0) return { b: value.data as Float32Array, k, n, transB, alpha };
  const c = constValueOf(cAnchor.node);
  const overN = c && (c.dims.length === 1 || (c.dims.length === 2 && c.dims[0] === 1)) && c.dims[c.dims.length - 1] === n;
  if (c?.type !== 'float32' || !overN) return undefined;
  const bias = (c.data as Float32Array).map((x) => x * beta);
  return { b: value.data as Float32Array, k, n, transB, alpha, bias };
}

/** A PackedMatMul in place of `node`: A, the panels, the bias, then a generated epilogue's inputs (from index 3). */
function replaceWithPacked(graph: Graph, node: Node, n: number, inputs: (OutDataAnchor | undefined)[]): void {
  const attrs = node.opDesc.attrs;
  const desc = createOpDesc({
    name: uniqueName(graph, `${node.name}_packed`),
    type: PACKED_MATMUL,
    domain: TSGE_DOMAIN,
    attrs: [
      ['n', attr.int(n)] as const,
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
  desc.inputDescs.push(
    ...inputs.slice(0, slots).map((a) => (a ? a.node.opDesc.outputDescs[a.index] : undefined) ?? createTensorDesc('float32', [])),
  );
  const replacement = graph.addNode(desc, { inputs: slots, outputs: 1 });
  for (let i = 0; i < slots; i++) {
    const a = inputs[i];
    if (a) graph.link(a, replacement.inData[i] as Node['inData'][number]);
  }
  graph.replaceAllUses(node.outData[0] as OutDataAnchor, replacement.outData[0] as OutDataAnchor);
  graph.removeNode(node);
}

/** A constant for packed data, stored as narrow as the weight it replaces (the precision mode's choice). */
function packedConst(graph: Graph, source: Node, name: string, dims: number[], data: Float32Array): OutDataAnchor {
  const constNode = addConst(graph, name, createTensor('float32', dims, data));
  const storage = source.opDesc.attrs.get(STORAGE_DTYPE);
  if (storage) constNode.opDesc.attrs.set(STORAGE_DTYPE, storage);
  return constNode.outData[0] as OutDataAnchor;
}

/**
 * Stores the constant B of MatMul / tsge::FusedMatMul / Gemm / tsge::FusedGemm in the panels the
 * CPU's GEMM and GEMV kernels read (tsge::PackedMatMul), so the `.om` carries packed weights:
 * nothing packs B per run, and a decode step (or a fully connected layer) streams each panel once,
 * split across threads. A B shared with other ops stays as it is (packing it would store the weight
 * twice). Runs last among the rewrites, on targets with a SIMD PackedMatMul.
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
      const sources = new Set<Node>();
      let changed = false;
      for (const node of [...graph.nodes]) {
        const gemm = packableGemm(node);
        if (gemm) {
          const source = node.inData[1]?.peer?.node as Node;
          const dims = [Math.ceil(gemm.n / PACKED_MATMUL_PANEL), gemm.k, PACKED_MATMUL_PANEL];
          const panels = packedConst(
            graph,
            source,
            `${source.name}_panels`,
            dims,
            packGemmPanels(gemm.b, gemm.k, gemm.n, gemm.transB, gemm.alpha),
          );
          // C over N is the bias; as it is when already [N] and unscaled, else beta·C as [N]
          const c = gemm.bias ? node.inData[2]?.peer : undefined;
          let bias = c;
          if (c && gemm.bias && (constValueOf(c.node)?.dims.length !== 1 || numberAttr(node, 'beta', 1) !== 1)) {
            bias = packedConst(graph, c.node, `${c.node.name}_bias`, [gemm.n], gemm.bias);
            sources.add(c.node);
          }
          sources.add(source);
          replaceWithPacked(graph, node, gemm.n, [node.inData[0]?.peer, panels, bias]);
          ctx.count('gemm-weights-packed');
          changed = true;
          continue;
        }
        const w = packableWeight(node);
        if (!w) continue;
        let panels = packed.get(w.source);
        if (!panels) {
          const dims = [Math.ceil(w.n / PACKED_MATMUL_PANEL), w.k, PACKED_MATMUL_PANEL];
          panels = packedConst(graph, w.source, `${w.source.name}_panels`, dims, packPanels(w.b, w.k, w.n));
          packed.set(w.source, panels);
          sources.add(w.source);
        }
        replaceWithPacked(graph, node, w.n, [node.inData[0]?.peer, panels, ...node.inData.slice(2).map((a) => a.peer)]);
        ctx.count('matmul-weights-packed');
        changed = true;
      }
      for (const source of sources) if (source.outData.every((o) => o.peers.length === 0)) graph.removeNode(source);
      return { changed };
    },
  };
}

import type { Graph, GraphPassV1, HostTensor, InDataAnchor, KernelRegistry, Node, OutDataAnchor } from '@tsge/metadef';
import { CONST, TSGE_DOMAIN, attr, constValueOf, createOpDesc, createTensor, createTensorDesc, readNumber } from '@tsge/metadef';
import {
  PACKED_MATMUL_INTEGER,
  PACKED_WEIGHT,
  REQUANTIZED_CONV,
  intPanelColumns,
  intSumsFit,
  packIntPanels,
  packIntWeights,
  packedPanelsAttr,
  packedPanelsShape,
  packedWeightAttr,
  packedWeightShape,
} from '@tsge/ops';
import { addConst, anchorDesc, uniqueName } from '../graph-utils.js';

const isByteDtype = (t: string | undefined): boolean => t === 'uint8' || t === 'int8';
const isByteType = (t: HostTensor | undefined): boolean => isByteDtype(t?.type);

/** A node's ints attribute, or undefined. */
function intsAttr(node: Node, name: string): readonly number[] | undefined {
  const a = node.opDesc.attrs.get(name);
  return a?.kind === 'ints' ? a.value : undefined;
}

/**
 * The constant weight of a 2-D tsge::RequantizedConv that runs as the integer GEMM (not depthwise;
 * not a pointwise convolution with one output position, whose weight-row dot products read the
 * bytes as stored) with a constant weight zero point of one value or one per row.
 */
function packableConv(node: Node): { w: HostTensor; wz: HostTensor | undefined; group: number } | undefined {
  if (node.type !== REQUANTIZED_CONV || node.opDesc.domain !== TSGE_DOMAIN || node.opDesc.attrs.has(PACKED_WEIGHT)) return undefined;
  const wAnchor = node.inData[1]?.peer;
  const wzAnchor = node.inData[3]?.peer;
  if (wAnchor?.node.type !== CONST || (wzAnchor && wzAnchor.node.type !== CONST)) return undefined;
  const w = constValueOf(wAnchor.node);
  const wz = wzAnchor ? constValueOf(wzAnchor.node) : undefined;
  if (!w || !isByteType(w) || w.dims.length !== 4 || (wzAnchor && (!wz || wz.type !== w.type))) return undefined;
  const [m, cg, kh, kw] = w.dims as [number, number, number, number];
  if (wz && wz.data.length !== 1 && wz.data.length !== m) return undefined;
  const groupAttr = node.opDesc.attrs.get('group');
  const group = groupAttr?.kind === 'int' ? groupAttr.value : 1;
  if (!Number.isInteger(group) || group < 1 || m % group !== 0) return undefined;
  const kernel = intsAttr(node, 'kernel_shape');
  if (kernel && (kernel.length !== 2 || kernel[0] !== kh || kernel[1] !== kw)) return undefined;
  if (cg === 1 && m === group) return undefined;
  const out = node.opDesc.outputDescs[0]?.shape;
  if (out?.length !== 4 || !out.every((d) => typeof d === 'number' && d > 0)) return undefined;
  const strides = intsAttr(node, 'strides') ?? [1, 1];
  const pads = intsAttr(node, 'pads') ?? [0, 0, 0, 0];
  const pointwise = kh === 1 && kw === 1 && strides.every((s) => s === 1) && pads.every((p) => p === 0);
  if (pointwise && (out[2] as number) * (out[3] as number) === 1) return undefined;
  return { w, wz, group };
}

/** The weight minus its zero point (one, or one per row), row-major [M, K]. */
function centred(w: HostTensor, wz: HostTensor | undefined, k: number): Int16Array {
  const data = w.data as Uint8Array | Int8Array;
  const out = new Int16Array(data.length);
  for (let row = 0; row * k < data.length; row++) {
    const z = wz ? readNumber(wz, wz.data.length === 1 ? 0 : row) : 0;
    for (let i = row * k; i < (row + 1) * k; i++) out[i] = (data[i] as number) - z;
  }
  return out;
}

/** Input slots of A, B, a_zero_point, b_zero_point and of QLinearMatMul's a_scale, b_scale, y_scale, y_zero_point. */
const PRODUCT_INPUTS = {
  MatMulInteger: { a: 0, b: 1, az: 2, bz: 3, scales: [] as number[], yz: -1 },
  QLinearMatMul: { a: 0, b: 3, az: 2, bz: 5, scales: [1, 4, 6], yz: 7 },
} as const;

/**
 * The constant B[K, N] of a MatMulInteger or QLinearMatMul on bytes (A of rank 2 or more, B 2-D,
 * b_zero_point a constant of one value or one per column, float32 scales, sums that fit int32):
 * what the integer GEMM multiplies as its panels.
 */
function packableProduct(
  node: Node,
): { b: HostTensor; bz: HostTensor | undefined; slots: (typeof PRODUCT_INPUTS)[keyof typeof PRODUCT_INPUTS] } | undefined {
  if (node.type !== 'MatMulInteger' && node.type !== 'QLinearMatMul') return undefined;
  if (node.opDesc.domain !== '' && node.opDesc.domain !== 'ai.onnx') return undefined;
  const slots = PRODUCT_INPUTS[node.type];
  const aDesc = anchorDesc(node.inData[slots.a]?.peer);
  if (!isByteDtype(aDesc?.dtype) || !Array.isArray(aDesc?.shape) || aDesc.shape.length < 2) return undefined;
  const bAnchor = node.inData[slots.b]?.peer;
  const bzAnchor = node.inData[slots.bz]?.peer;
  if (bAnchor?.node.type !== CONST || (bzAnchor && bzAnchor.node.type !== CONST)) return undefined;
  const b = constValueOf(bAnchor.node);
  const bz = bzAnchor ? constValueOf(bzAnchor.node) : undefined;
  if (!b || !isByteType(b) || b.dims.length !== 2 || (bzAnchor && (!bz || bz.type !== b.type))) return undefined;
  const [k, n] = b.dims as [number, number];
  if (k < 1 || n < 1 || !intSumsFit(k) || (bz && bz.data.length !== 1 && bz.data.length !== n)) return undefined;
  if (slots.scales.some((i) => anchorDesc(node.inData[i]?.peer)?.dtype !== 'float32')) return undefined;
  if (slots.yz >= 0 && !isByteDtype(anchorDesc(node.inData[slots.yz]?.peer)?.dtype)) return undefined;
  return { b, bz, slots };
}

/** B minus its zero point (one, or one per column), row-major [K, N]. */
function centredColumns(b: HostTensor, bz: HostTensor | undefined): Int16Array {
  const data = b.data as Uint8Array | Int8Array;
  const n = b.dims[1] as number;
  const out = new Int16Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = (data[i] as number) - (bz ? readNumber(bz, bz.data.length === 1 ? 0 : i % n) : 0);
  return out;
}

/** A tsge::PackedMatMulInteger in place of `node`: A, the panels, a_zero_point, then QLinearMatMul's scales and y_zero_point. */
function replaceWithPackedProduct(
  graph: Graph,
  node: Node,
  panels: OutDataAnchor,
  ints: number[],
  slots: (typeof PRODUCT_INPUTS)[keyof typeof PRODUCT_INPUTS],
): void {
  const inputs = [
    node.inData[slots.a]?.peer,
    panels,
    node.inData[slots.az]?.peer,
    ...[...slots.scales, slots.yz].map((i) => (i < 0 ? undefined : node.inData[i]?.peer)),
  ];
  let count = inputs.length;
  while (count > 2 && !inputs[count - 1]) count--;
  const desc = createOpDesc({
    name: uniqueName(graph, `${node.name}_packed`),
    type: PACKED_MATMUL_INTEGER,
    domain: TSGE_DOMAIN,
    attrs: [[PACKED_WEIGHT, attr.ints(ints)] as const],
    outputDescs: [...node.opDesc.outputDescs.slice(0, 1)],
    outputNames: [node.opDesc.outputNames[0] ?? node.name],
  });
  desc.inputDescs.push(...inputs.slice(0, count).map((a) => anchorDesc(a) ?? createTensorDesc('float32', [])));
  const replacement = graph.addNode(desc, { inputs: count, outputs: 1 });
  for (let i = 0; i < count; i++) {
    const a = inputs[i];
    if (a) graph.link(a, replacement.inData[i] as InDataAnchor);
  }
  graph.replaceAllUses(node.outData[0] as OutDataAnchor, replacement.outData[0] as OutDataAnchor);
  graph.removeNode(node);
}

/**
 * Stores the constant weight of each tsge::RequantizedConv that runs as the WebAssembly integer
 * GEMM in the layout that GEMM reads (int16 w − w_zero_point, 4-row blocks of i16 pairs: see
 * packed-int-weights.ts in @tsge/ops), so no run widens, centres or transposes weight rows; the
 * zero point input goes away (it is in the values). A weight shared by several convolutions is
 * packed once. The constant B of a MatMulInteger or QLinearMatMul is stored likewise as int16
 * B − b_zero_point in the panels the same GEMM multiplies (packed-int-panels.ts), on a
 * tsge::PackedMatMulInteger. The reference kernels unpack such weights, so a `.om` made here runs
 * on any device. Runs on targets with the SIMD RequantizedConv, after the rewrites.
 */
export function packIntWeightsPass(kernels: KernelRegistry, target: string): GraphPassV1 {
  return {
    specVersion: 'v1',
    name: 'pack-int-weights',
    level: 2,
    run(graph, ctx) {
      if (target === 'js' || kernels.find(REQUANTIZED_CONV, TSGE_DOMAIN, 'uint8', ['wasm-simd'])?.name !== 'wasm-simd')
        return { changed: false };
      const packed = new Map<string, OutDataAnchor>();
      const sources = new Set<Node>();
      let changed = false;
      const products = kernels.find(PACKED_MATMUL_INTEGER, TSGE_DOMAIN, 'uint8', ['wasm-simd'])?.name === 'wasm-simd';
      for (const node of [...graph.nodes]) {
        const product = products ? packableProduct(node) : undefined;
        if (product) {
          const [k, n] = product.b.dims as [number, number];
          const ints = packedPanelsAttr(k, n, intPanelColumns(k, n));
          const shape = packedPanelsShape(ints);
          if (typeof shape === 'string') continue;
          const bNode = node.inData[product.slots.b]?.peer?.node as Node;
          const bzNode = node.inData[product.slots.bz]?.peer?.node;
          const key = `${bNode.name}\u0000${bzNode?.name ?? ''}\u0000panels`;
          let anchor = packed.get(key);
          if (!anchor) {
            const data = packIntPanels(centredColumns(product.b, product.bz), shape);
            anchor = addConst(graph, `${bNode.name}_panels`, createTensor('int16', [shape.k2, shape.n8], data)).outData[0] as OutDataAnchor;
            packed.set(key, anchor);
          }
          sources.add(bNode);
          if (bzNode) sources.add(bzNode);
          replaceWithPackedProduct(graph, node, anchor, ints, product.slots);
          ctx.count('int-matmul-weights-packed');
          changed = true;
          continue;
        }
        const conv = packableConv(node);
        if (!conv) continue;
        const ints = packedWeightAttr(conv.w.dims);
        const shape = packedWeightShape(ints);
        if (typeof shape === 'string') continue;
        const wNode = node.inData[1]?.peer?.node as Node;
        const wzNode = node.inData[3]?.peer?.node;
        // one packed copy per weight, zero point and grouping
        const key = `${wNode.name}\u0000${wzNode?.name ?? ''}\u0000${conv.group}`;
        let anchor = packed.get(key);
        if (!anchor) {
          const data = packIntWeights(centred(conv.w, conv.wz, shape.k), shape, conv.group);
          const constNode = addConst(graph, `${wNode.name}_packed`, createTensor('int16', [shape.dims[0], shape.k16], data));
          anchor = constNode.outData[0] as OutDataAnchor;
          packed.set(key, anchor);
        }
        sources.add(wNode);
        if (wzNode) sources.add(wzNode);
        graph.link(anchor, node.inData[1] as InDataAnchor);
        if (node.inData[3]?.peer) graph.unlink(node.inData[3] as InDataAnchor);
        node.opDesc.attrs.set(PACKED_WEIGHT, attr.ints(ints));
        node.opDesc.attrs.set('kernel_shape', attr.ints(shape.dims.slice(2)));
        ctx.count('int-weights-packed');
        changed = true;
      }
      for (const source of sources) if (source.outData.every((o) => o.peers.length === 0)) graph.removeNode(source);
      return { changed };
    },
  };
}

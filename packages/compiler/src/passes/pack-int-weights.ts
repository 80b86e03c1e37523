import type { GraphPassV1, HostTensor, InDataAnchor, KernelRegistry, Node, OutDataAnchor } from '@tsge/metadef';
import { CONST, TSGE_DOMAIN, attr, constValueOf, createTensor, readNumber } from '@tsge/metadef';
import { PACKED_WEIGHT, REQUANTIZED_CONV, packIntWeights, packedWeightAttr, packedWeightShape } from '@tsge/ops';
import { addConst } from '../graph-utils.js';

const isByteType = (t: HostTensor | undefined): boolean => t?.type === 'uint8' || t?.type === 'int8';

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

/**
 * Stores the constant weight of each tsge::RequantizedConv that runs as the WebAssembly integer
 * GEMM in the layout that GEMM reads (int16 w − w_zero_point, 4-row blocks of i16 pairs: see
 * packed-int-weights.ts in @tsge/ops), so no run widens, centres or transposes weight rows; the
 * zero point input goes away (it is in the values). A weight shared by several convolutions is
 * packed once. The reference kernel unpacks such a weight, so a `.om` made here runs on any device.
 * Runs on targets with the SIMD RequantizedConv, after the rewrites.
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
      for (const node of [...graph.nodes]) {
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

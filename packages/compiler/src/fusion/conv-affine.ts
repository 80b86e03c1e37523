import type { FusionMatch, FusionPassV1, Graph, HostTensor, Node } from '@tsge/metadef';
import { cloneOpDesc, constValueOf, createTensor } from '@tsge/metadef';
import { addConst, uniqueName } from '../graph-utils.js';
import { replaceMatchWith } from './matcher.js';
import { descOf, pattern } from './patterns.js';

// Conv followed by a Mul or Add with a constant per output channel (PP-LCNet's learnable affine
// blocks, or a BatchNorm exported as Mul + Add): the constant folds into the weights and bias.
const patterns = ['Mul', 'Add'].flatMap((type) => [
  pattern(`conv-${type.toLowerCase()}`, 3, (op, x) => [op(type, [op('Conv', [x[0], x[1]], 'conv'), x[2]], 'affine')]),
  pattern(`conv-bias-${type.toLowerCase()}`, 4, (op, x) => [op(type, [op('Conv', [x[0], x[1], x[2]], 'conv'), x[3]], 'affine')]),
]);

/**
 * One value per output channel from a constant broadcast against a [N, C, ...] result: a single
 * element, or C values on the channel axis with every other dim 1, of rank ≤ the result's.
 */
export function perChannel(t: HostTensor | undefined, rank: number, channels: number): Float32Array | undefined {
  if (t?.type !== 'float32' || t.dims.length > rank) return undefined;
  const data = t.data as Float32Array;
  if (data.length === 1) return new Float32Array(channels).fill(data[0] as number);
  const channelAxis = t.dims.length - (rank - 1);
  if (data.length !== channels || channelAxis < 0) return undefined;
  return t.dims.every((d, i) => (i === channelAxis ? d === channels : d === 1)) ? data : undefined;
}

function paramsOf(m: FusionMatch) {
  const hasBias = m.pattern.startsWith('conv-bias-');
  const weights = constValueOf(m.inputs[1]?.node);
  const bias = hasBias ? constValueOf(m.inputs[2]?.node) : undefined;
  const out = descOf(m.outputs[0]);
  const channels = weights?.dims[0];
  const factor =
    out && channels !== undefined ? perChannel(constValueOf(m.inputs[hasBias ? 3 : 2]?.node), out.shape.length, channels) : undefined;
  return { hasBias, weights, bias, factor, channels: channels ?? 0 };
}

/** Conv followed by Mul or Add with a per-channel constant folds into the Conv's weights and bias (O2). */
export const convAffineFusion: FusionPassV1 = {
  specVersion: 'v1',
  name: 'conv-affine',
  level: 2,
  patterns: () => patterns,
  requirements(m) {
    const { hasBias, weights, bias, factor, channels } = paramsOf(m);
    const out = descOf(m.outputs[0]);
    const conv = descOf((m.nodes.get('conv') as Node).outData[0]);
    return (
      weights?.type === 'float32' &&
      factor !== undefined &&
      (!hasBias || (bias?.type === 'float32' && bias.data.length === channels)) &&
      out?.dtype === 'float32' &&
      conv !== undefined &&
      out.shape.join() === conv.shape.join()
    );
  },
  replace(m, graph: Graph) {
    const { weights, bias, factor, channels } = paramsOf(m);
    const w = weights?.data as Float32Array;
    const s = factor as Float32Array;
    const b = bias ? (bias.data as Float32Array) : new Float32Array(channels);
    const conv = m.nodes.get('conv') as Node;
    const affine = m.nodes.get('affine') as Node;
    const newB = new Float32Array(channels);
    let newW = w;
    if (affine.type === 'Mul') {
      newW = new Float32Array(w.length);
      const per = w.length / channels;
      for (let c = 0; c < channels; c++) {
        for (let k = 0; k < per; k++) newW[c * per + k] = (w[c * per + k] as number) * (s[c] as number);
        newB[c] = (b[c] as number) * (s[c] as number);
      }
    } else for (let c = 0; c < channels; c++) newB[c] = (b[c] as number) + (s[c] as number);
    const inputs = [m.inputs[0], m.inputs[1]];
    if (newW !== w)
      inputs[1] = addConst(
        graph,
        `${conv.name}_w_${affine.type.toLowerCase()}`,
        createTensor('float32', weights?.dims ?? [], newW),
      ).outData[0];
    const bNode = addConst(graph, `${conv.name}_b_${affine.type.toLowerCase()}`, createTensor('float32', [channels], newB));
    const desc = cloneOpDesc(conv.opDesc);
    desc.name = uniqueName(graph, `${conv.name}_${affine.type.toLowerCase()}`);
    desc.outputDescs = [...affine.opDesc.outputDescs.slice(0, 1)];
    desc.outputNames = [affine.opDesc.outputNames[0] ?? desc.name];
    const fused = graph.addNode(desc, { inputs: 3, outputs: 1 });
    replaceMatchWith(graph, m, fused, [...inputs, bNode.outData[0]]);
    return [fused];
  },
};

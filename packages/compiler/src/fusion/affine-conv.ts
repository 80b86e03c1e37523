import type { FusionMatch, FusionPassV1, Graph, Node, OutDataAnchor } from '@tsge/metadef';
import { constValueOf, createTensor } from '@tsge/metadef';
import { addConst } from '../graph-utils.js';
import { rewireConv } from './conv-rewire.js';
import { perChannel } from './conv-affine.js';
import { descOf, pattern } from './patterns.js';

// A Mul or Add by a per-channel constant feeding a Conv (PP-LCNet's learnable affine block after
// an activation) folds into the Conv's weights (Mul) or bias (Add, only when the Conv pads
// nothing: padded zeros would otherwise have been the constant).
const patterns = ['Mul', 'Add'].flatMap((type) => [
  pattern(`${type.toLowerCase()}-conv`, 3, (op, x) => [op('Conv', [op(type, [x[0], x[2]], 'affine'), x[1]], 'conv')]),
  pattern(`${type.toLowerCase()}-conv-bias`, 4, (op, x) => [op('Conv', [op(type, [x[0], x[3]], 'affine'), x[1], x[2]], 'conv')]),
]);

function padsNothing(conv: Node): boolean {
  const autoPad = conv.opDesc.attrs.get('auto_pad');
  if (autoPad?.kind === 'string' && autoPad.value !== 'NOTSET' && autoPad.value !== 'VALID') return false;
  const pads = conv.opDesc.attrs.get('pads');
  return pads === undefined || (pads.kind === 'ints' && pads.value.every((p) => Number(p) === 0));
}

function paramsOf(m: FusionMatch) {
  const hasBias = m.pattern.endsWith('-bias');
  const weights = constValueOf(m.inputs[1]?.node);
  const bias = hasBias ? constValueOf(m.inputs[2]?.node) : undefined;
  const input = descOf(m.inputs[0]);
  const conv = m.nodes.get('conv') as Node;
  const group = conv.opDesc.attrs.get('group');
  const groups = group?.kind === 'int' ? group.value : 1;
  const inChannels = weights && weights.dims.length >= 3 ? (weights.dims[1] as number) * groups : 0;
  const constant = constValueOf(m.inputs[hasBias ? 3 : 2]?.node);
  const factor = input && input.shape[1] === inChannels ? perChannel(constant, input.shape.length, inChannels) : undefined;
  return { hasBias, weights, bias, factor, groups, inChannels, conv };
}

/** A per-channel Mul (or, when the Conv has no padding, Add) before a Conv folds into it (O2). */
export const affineConvFusion: FusionPassV1 = {
  specVersion: 'v1',
  name: 'affine-conv',
  level: 2,
  patterns: () => patterns,
  requirements(m) {
    const { hasBias, weights, bias, factor, groups, inChannels, conv } = paramsOf(m);
    const affine = m.nodes.get('affine') as Node;
    const outChannels = weights?.dims[0] ?? 0;
    return (
      weights?.type === 'float32' &&
      factor !== undefined &&
      inChannels > 0 &&
      outChannels % groups === 0 &&
      (!hasBias || (bias?.type === 'float32' && bias.data.length === outChannels)) &&
      descOf(affine.outData[0])?.shape.join() === descOf(m.inputs[0])?.shape.join() &&
      (affine.type === 'Mul' || padsNothing(conv))
    );
  },
  replace(m, graph: Graph) {
    const { weights, bias, factor, groups, inChannels, conv } = paramsOf(m);
    const affine = m.nodes.get('affine') as Node;
    const w = weights?.data as Float32Array;
    const s = factor as Float32Array;
    const outChannels = weights?.dims[0] as number;
    const perGroupIn = inChannels / groups;
    const perGroupOut = outChannels / groups;
    const kernel = w.length / (outChannels * perGroupIn);
    const newB = bias ? Float32Array.from(bias.data as Float32Array) : new Float32Array(outChannels);
    const scales = affine.type === 'Mul';
    const newW = scales ? new Float32Array(w.length) : w;
    for (let o = 0; o < outChannels; o++) {
      const firstChannel = Math.floor(o / perGroupOut) * perGroupIn;
      let shift = 0;
      for (let c = 0; c < perGroupIn; c++) {
        const value = s[firstChannel + c] as number;
        const base = (o * perGroupIn + c) * kernel;
        for (let k = base; k < base + kernel; k++) {
          if (scales) newW[k] = (w[k] as number) * value;
          else shift += (w[k] as number) * value;
        }
      }
      newB[o] = (newB[o] as number) + shift;
    }
    const tag = affine.type.toLowerCase();
    const wAnchor =
      newW === w ? m.inputs[1] : addConst(graph, `${conv.name}_w_${tag}`, createTensor('float32', weights?.dims ?? [], newW)).outData[0];
    const bNode = addConst(graph, `${conv.name}_b_${tag}`, createTensor('float32', [outChannels], newB));
    const fused = rewireConv(graph, m, conv, {
      input: m.inputs[0] as OutDataAnchor,
      weights: wAnchor as OutDataAnchor,
      bias: bNode.outData[0] as OutDataAnchor,
    });
    return [fused];
  },
};

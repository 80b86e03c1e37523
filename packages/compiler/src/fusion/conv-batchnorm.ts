import type { FusionMatch, FusionPassV1, Graph, Node } from '@tsge/metadef';
import { cloneOpDesc, constValueOf, createTensor } from '@tsge/metadef';
import { addConst, uniqueName } from '../graph-utils.js';
import { replaceMatchWith } from './matcher.js';
import { pattern } from './patterns.js';

const withoutBias = pattern('conv-bn', 6, (op, x) => {
  const conv = op('Conv', [x[0], x[1]], 'conv');
  return [op('BatchNormalization', [conv, x[2], x[3], x[4], x[5]], 'bn')];
});
const withBias = pattern('conv-bias-bn', 7, (op, x) => {
  const conv = op('Conv', [x[0], x[1], x[2]], 'conv');
  return [op('BatchNormalization', [conv, x[3], x[4], x[5], x[6]], 'bn')];
});

/** Params of a match: weights, optional bias and BN's scale, bias, mean, var (float32 constants). */
function paramsOf(m: FusionMatch) {
  const hasBias = m.pattern === 'conv-bias-bn';
  const at = (i: number) => constValueOf(m.inputs[i]?.node);
  const w = at(1);
  const b = hasBias ? at(2) : undefined;
  const [s, bb, mean, v] = [0, 1, 2, 3].map((k) => at(k + (hasBias ? 3 : 2)));
  return { hasBias, w, b, s, bb, mean, v };
}

/** Conv followed by BatchNormalization (inference) folds into the Conv's weights and bias. */
export const convBatchNormFusion: FusionPassV1 = {
  specVersion: 'v1',
  name: 'conv-batchnorm',
  level: 2,
  patterns: () => [withoutBias, withBias],
  requirements(m) {
    const { hasBias, w, b, s, bb, mean, v } = paramsOf(m);
    const bn = m.nodes.get('bn') as Node;
    const training = bn.opDesc.attrs.get('training_mode');
    if (training && training.value === 1) return false;
    const all = [w, s, bb, mean, v, ...(hasBias ? [b] : [])];
    if (all.some((t) => t?.type !== 'float32') || !w) return false;
    const channels = w.dims[0] as number;
    return [s, bb, mean, v, ...(hasBias ? [b] : [])].every((t) => t && t.data.length === channels);
  },
  replace(m, graph: Graph) {
    const p = paramsOf(m);
    const [s, bb, mean, v] = [p.s, p.bb, p.mean, p.v].map((t) => t?.data as Float32Array);
    const { w, b } = p;
    const conv = m.nodes.get('conv') as Node;
    const bn = m.nodes.get('bn') as Node;
    const eps = bn.opDesc.attrs.get('epsilon')?.value;
    const epsilon = typeof eps === 'number' ? eps : 1e-5;
    const weights = w?.data as Float32Array;
    const channels = w?.dims[0] as number;
    const per = weights.length / channels;
    const newW = new Float32Array(weights.length);
    const newB = new Float32Array(channels);
    for (let c = 0; c < channels; c++) {
      const factor = (s[c] as number) / Math.sqrt((v[c] as number) + epsilon);
      for (let k = 0; k < per; k++) newW[c * per + k] = (weights[c * per + k] as number) * factor;
      const bias = b ? ((b.data as Float32Array)[c] as number) : 0;
      newB[c] = (bias - (mean[c] as number)) * factor + (bb[c] as number);
    }
    const wNode = addConst(graph, `${conv.name}_w_bn`, createTensor('float32', w?.dims ?? [], newW));
    const bNode = addConst(graph, `${conv.name}_b_bn`, createTensor('float32', [channels], newB));
    const desc = cloneOpDesc(conv.opDesc);
    desc.name = uniqueName(graph, `${conv.name}_bn`);
    desc.outputDescs = [...bn.opDesc.outputDescs.slice(0, 1)];
    desc.outputNames = [bn.opDesc.outputNames[0] ?? desc.name];
    const fused = graph.addNode(desc, { inputs: 3, outputs: 1 });
    replaceMatchWith(graph, m, fused, [m.inputs[0], wNode.outData[0], bNode.outData[0]]);
    return [fused];
  },
};

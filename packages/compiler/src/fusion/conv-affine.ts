import type { FusionMatch, FusionPassV1, Graph, HostTensor, Node, OutDataAnchor } from '@tsge/metadef';
import { constValueOf, createTensor } from '@tsge/metadef';
import { addConst } from '../graph-utils.js';
import { rewireConv } from './conv-rewire.js';
import { descOf, pattern } from './patterns.js';

// Conv or ConvTranspose followed by a Mul or Add with a constant per output channel (PP-LCNet's
// learnable affine blocks, a BatchNorm exported as Mul + Add, a bias added after ConvTranspose),
// or ConvTranspose followed by BatchNormalization: the constants fold into the weights and bias.
// (Conv + BatchNormalization is conv-batchnorm's.)
const patterns = ['Conv', 'ConvTranspose'].flatMap((base) =>
  ['Mul', 'Add', ...(base === 'ConvTranspose' ? ['BatchNormalization'] : [])].flatMap((type) => {
    const name = `${base}-${type}`.toLowerCase();
    const extra = type === 'BatchNormalization' ? 4 : 1;
    return [
      pattern(name, 2 + extra, (op, x) => [op(type, [op(base, [x[0], x[1]], 'conv'), ...x.slice(2)], 'affine')]),
      pattern(`${name}-bias`, 3 + extra, (op, x) => [op(type, [op(base, [x[0], x[1], x[2]], 'conv'), ...x.slice(3)], 'affine')]),
    ];
  }),
);

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

/** y = x · scale[c] + shift[c] per output channel c. */
interface ChannelAffine {
  scale: Float32Array;
  shift: Float32Array;
}

/**
 * An inference BatchNormalization as y = x · scale[c] + shift[c], from its float32 statistics
 * (scale, bias, mean, variance, each of `channels`); undefined in training mode or with other inputs.
 */
export function batchNormAffine(bn: Node, statistics: readonly (HostTensor | undefined)[], channels: number): ChannelAffine | undefined {
  const training = bn.opDesc.attrs.get('training_mode');
  if (training?.value === 1 || bn.outData.length > 1) return undefined;
  const [s, b, mean, variance] = statistics.map((t) =>
    t?.type === 'float32' && t.data.length === channels ? (t.data as Float32Array) : undefined,
  );
  if (!s || !b || !mean || !variance) return undefined;
  const eps = bn.opDesc.attrs.get('epsilon');
  const epsilon = eps?.kind === 'float' ? eps.value : 1e-5;
  const scale = new Float32Array(channels);
  const shift = new Float32Array(channels);
  for (let c = 0; c < channels; c++) {
    const factor = (s[c] as number) / Math.sqrt((variance[c] as number) + epsilon);
    scale[c] = factor;
    shift[c] = (b[c] as number) - (mean[c] as number) * factor;
  }
  return { scale, shift };
}

function affineOf(
  m: FusionMatch,
  constants: readonly (HostTensor | undefined)[],
  rank: number,
  channels: number,
): ChannelAffine | undefined {
  const affine = m.nodes.get('affine') as Node;
  if (affine.type === 'BatchNormalization') return batchNormAffine(affine, constants, channels);
  const values = perChannel(constants[0], rank, channels);
  if (!values) return undefined;
  return affine.type === 'Mul'
    ? { scale: values, shift: new Float32Array(channels) }
    : { scale: new Float32Array(channels).fill(1), shift: values };
}

function paramsOf(m: FusionMatch) {
  const hasBias = m.pattern.endsWith('-bias');
  const conv = m.nodes.get('conv') as Node;
  const transposed = conv.type === 'ConvTranspose';
  const group = conv.opDesc.attrs.get('group');
  const groups = group?.kind === 'int' ? group.value : 1;
  const weights = constValueOf(m.inputs[1]?.node);
  const bias = hasBias ? constValueOf(m.inputs[2]?.node) : undefined;
  const out = descOf(m.outputs[0]);
  // Conv weights are [C_out, C_in/group, k...], ConvTranspose's [C_in, C_out/group, k...]
  const channels =
    weights && weights.dims.length >= 3 ? (transposed ? (weights.dims[1] as number) * groups : (weights.dims[0] as number)) : 0;
  const constants = m.inputs.slice(hasBias ? 3 : 2).map((a) => constValueOf(a?.node));
  const affine = out && channels > 0 ? affineOf(m, constants, out.shape.length, channels) : undefined;
  return { hasBias, conv, transposed, groups, weights, bias, affine, channels };
}

/** Output channel of each weight element. */
function outputChannelOf(weights: HostTensor, transposed: boolean, groups: number, channels: number): (index: number) => number {
  const perOutput = weights.data.length / (weights.dims[0] as number);
  if (!transposed) return (index) => Math.floor(index / perOutput);
  const inputs = weights.dims[0] as number;
  const outPerGroup = channels / groups;
  const kernel = perOutput / outPerGroup;
  return (index) => {
    const input = Math.floor(index / perOutput);
    const local = Math.floor(index / kernel) % outPerGroup;
    return Math.floor(input / (inputs / groups)) * outPerGroup + local;
  };
}

/** Conv/ConvTranspose followed by a per-channel Mul, Add (or, for ConvTranspose, BatchNormalization) folds into it (O2). */
export const convAffineFusion: FusionPassV1 = {
  specVersion: 'v1',
  name: 'conv-affine',
  level: 2,
  patterns: () => patterns,
  requirements(m) {
    const { hasBias, transposed, groups, weights, bias, affine, channels } = paramsOf(m);
    const out = descOf(m.outputs[0]);
    const conv = descOf((m.nodes.get('conv') as Node).outData[0]);
    const inputs = weights?.dims[0] ?? 0;
    return (
      weights?.type === 'float32' &&
      affine !== undefined &&
      (!transposed || (groups > 0 && inputs % groups === 0)) &&
      (!hasBias || (bias?.type === 'float32' && bias.data.length === channels)) &&
      out?.dtype === 'float32' &&
      conv !== undefined &&
      out.shape.join() === conv.shape.join()
    );
  },
  replace(m, graph: Graph) {
    const { weights, bias, affine, channels, transposed, groups, conv } = paramsOf(m);
    const w = weights?.data as Float32Array;
    const { scale, shift } = affine as ChannelAffine;
    const b = bias ? (bias.data as Float32Array) : new Float32Array(channels);
    const node = m.nodes.get('affine') as Node;
    const tag = node.type === 'BatchNormalization' ? 'bn' : node.type.toLowerCase();
    const newB = new Float32Array(channels);
    for (let c = 0; c < channels; c++) newB[c] = (b[c] as number) * (scale[c] as number) + (shift[c] as number);
    let wAnchor = m.inputs[1];
    if (scale.some((v) => v !== 1)) {
      const channelOf = outputChannelOf(weights as HostTensor, transposed, groups, channels);
      const newW = new Float32Array(w.length);
      for (let i = 0; i < w.length; i++) newW[i] = (w[i] as number) * (scale[channelOf(i)] as number);
      wAnchor = addConst(graph, `${conv.name}_w_${tag}`, createTensor('float32', weights?.dims ?? [], newW)).outData[0];
    }
    const bNode = addConst(graph, `${conv.name}_b_${tag}`, createTensor('float32', [channels], newB));
    const fused = rewireConv(graph, m, conv, {
      input: m.inputs[0] as OutDataAnchor,
      weights: wAnchor as OutDataAnchor,
      bias: bNode.outData[0] as OutDataAnchor,
    });
    return [fused];
  },
};

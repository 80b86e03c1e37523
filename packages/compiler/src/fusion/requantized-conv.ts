import type { FusionMatch, FusionPassV1, HostTensor, Node, OutDataAnchor } from '@tsge/metadef';
import { TSGE_DOMAIN, constValueOf, createOpDesc } from '@tsge/metadef';
import { REQUANTIZED_CONV } from '@tsge/ops';
import { uniqueName } from '../graph-utils.js';
import { replaceMatchWith } from './matcher.js';
import { descOf, pattern } from './patterns.js';

// ConvInteger (2 to 4 inputs) → [Add int32 bias] → Cast float32 → Mul scale → QuantizeLinear(1, zp)
// → [Clip min max]: how the TFLite importer spells a quantized convolution or fully connected layer
// (LiteRT's arithmetic, op by op). tsge::RequantizedConv computes exactly the same values in one
// kernel, with the requantization in the store.
const patterns = [2, 3, 4].flatMap((convInputs) =>
  [false, true].flatMap((bias) =>
    // longest first: the chain without its Clip would match too
    [true, false].map((clip) =>
      pattern(
        `requantized-conv-${convInputs}${bias ? '-bias' : ''}${clip ? '-clip' : ''}`,
        convInputs + (bias ? 4 : 3) + (clip ? 2 : 0),
        (op, x) => {
          let i = convInputs;
          let v = op('ConvInteger', x.slice(0, convInputs), 'conv');
          if (bias) v = op('Add', [v, x[i++] as never], 'bias');
          v = op('Cast', [v], 'cast');
          v = op('Mul', [v, x[i++] as never], 'scale');
          v = op('QuantizeLinear', [v, x[i++] as never, x[i++] as never], 'quantize');
          if (clip) v = op('Clip', [v, x[i++] as never, x[i++] as never], 'clip');
          return [v];
        },
      ),
    ),
  ),
);

interface Parts {
  convInputs: number;
  bias?: OutDataAnchor;
  scale: OutDataAnchor;
  quantScale: OutDataAnchor;
  zeroPoint: OutDataAnchor;
  clip?: [OutDataAnchor, OutDataAnchor];
}

function partsOf(m: FusionMatch): Parts {
  const conv = m.nodes.get('conv') as Node;
  const convInputs = conv.inData.filter((a) => a.peer).length;
  let i = convInputs;
  const at = () => m.inputs[i++] as OutDataAnchor;
  const bias = m.nodes.has('bias') ? at() : undefined;
  const scale = at();
  const quantScale = at();
  const zeroPoint = at();
  const clip: [OutDataAnchor, OutDataAnchor] | undefined = m.nodes.has('clip') ? [at(), at()] : undefined;
  return { convInputs, scale, quantScale, zeroPoint, ...(bias ? { bias } : {}), ...(clip ? { clip } : {}) };
}

/** A constant of `dtype` with one element, or `channels` elements on the channel axis of a rank-`rank` result. */
function isPerChannel(t: HostTensor | undefined, dtype: string, rank: number, channels: number): boolean {
  if (t?.type !== dtype || t.dims.length > rank) return false;
  if (t.data.length === 1) return true;
  const axis = t.dims.length - (rank - 1);
  return t.data.length === channels && axis >= 0 && t.dims.every((d, k) => (k === axis ? d === channels : d === 1));
}

function isScalarConst(anchor: OutDataAnchor | undefined, types: readonly string[]): HostTensor | undefined {
  const t = constValueOf(anchor?.node);
  return t && types.includes(t.type) && t.data.length === 1 ? t : undefined;
}

function requirementsHold(m: FusionMatch): boolean {
  const p = partsOf(m);
  const conv = descOf((m.nodes.get('conv') as Node).outData[0]);
  const out = descOf(m.outputs[0]);
  if (!conv || !out || conv.dtype !== 'int32') return false;
  const rank = conv.shape.length;
  const channels = conv.shape[1];
  if (rank < 3 || typeof channels !== 'number' || channels <= 0) return false;
  const cast = m.nodes.get('cast') as Node;
  const to = cast.opDesc.attrs.get('to');
  if (to?.kind !== 'int' || to.value !== 1) return false;
  if (p.bias && !isPerChannel(constValueOf(p.bias.node), 'int32', rank, channels)) return false;
  if (!isPerChannel(constValueOf(p.scale.node), 'float32', rank, channels)) return false;
  // the fused kernel divides by nothing: QuantizeLinear's scale must be exactly 1
  const unit = isScalarConst(p.quantScale, ['float32']);
  if (unit?.data[0] !== 1) return false;
  const zp = isScalarConst(p.zeroPoint, ['uint8', 'int8']);
  if (!zp || out.dtype !== zp.type) return false;
  const quantize = m.nodes.get('quantize') as Node;
  const outputDtype = quantize.opDesc.attrs.get('output_dtype');
  if (outputDtype?.kind === 'int' && outputDtype.value !== 0 && outputDtype.value !== (zp.type === 'uint8' ? 2 : 3)) return false;
  if (p.clip) {
    const [lo, hi] = p.clip.map((a) => isScalarConst(a, [zp.type]));
    if (!lo || !hi) return false;
  }
  // the Add must not broadcast beyond the convolution's shape
  const added = m.nodes.has('bias') ? descOf((m.nodes.get('bias') as Node).outData[0]) : conv;
  return added?.shape.length === rank;
}

/** The requantized integer convolution chain becomes tsge::RequantizedConv (O3). */
export const requantizedConvFusion: FusionPassV1 = {
  specVersion: 'v1',
  name: 'requantized-conv',
  level: 3,
  patterns: () => patterns,
  requirements: requirementsHold,
  replace(m, graph) {
    const p = partsOf(m);
    const conv = m.nodes.get('conv') as Node;
    const last = m.outputs[0] as OutDataAnchor;
    const node = graph.addNode(
      createOpDesc({
        name: uniqueName(graph, `${conv.name}_requantized`),
        type: REQUANTIZED_CONV,
        domain: TSGE_DOMAIN,
        attrs: new Map(conv.opDesc.attrs),
        outputDescs: [...last.node.opDesc.outputDescs.slice(last.index, last.index + 1)],
        outputNames: [last.node.opDesc.outputNames[last.index] ?? last.node.name],
      }),
      { inputs: 9, outputs: 1 },
    );
    const convIn = m.inputs.slice(0, p.convInputs);
    replaceMatchWith(graph, m, node, [convIn[0], convIn[1], convIn[2], convIn[3], p.bias, p.scale, p.zeroPoint, p.clip?.[0], p.clip?.[1]]);
    return [node];
  },
};

import type { FusionMatch, FusionPassV1, HostTensor, Node, OutDataAnchor } from '@tsge/metadef';
import { TSGE_DOMAIN, attr, constValueOf, createOpDesc, createTensor } from '@tsge/metadef';
import { REQUANTIZED_CONV } from '@tsge/ops';
import { addConst, uniqueName } from '../graph-utils.js';
import { replaceMatchWith } from './matcher.js';
import { descOf, pattern } from './patterns.js';

// QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp[, B]) with constant scales and
// bias is tsge::RequantizedConv with exact_product = 1 and the scale fround(x_scale·w_scale /
// y_scale) per output channel: the same values as QLinearConv's reference (an exact sum times that
// float32 scale in float64), on the integer SIMD kernels.
const patterns = [8, 9].map((inputs) => pattern(`qlinear-conv-${inputs}`, inputs, (op, x) => [op('QLinearConv', x, 'conv')]));

const floatConst = (anchor: OutDataAnchor | undefined): HostTensor | undefined => {
  const t = constValueOf(anchor?.node);
  return t?.type === 'float32' ? t : undefined;
};

/** The node's own inputs (a pattern may match a node with more linked inputs than it names). */
const inputsOf = (m: FusionMatch): (OutDataAnchor | undefined)[] => (m.nodes.get('conv') as Node).inData.map((a) => a.peer ?? undefined);

function requirementsHold(m: FusionMatch): boolean {
  const inputs = inputsOf(m);
  const out = descOf(m.outputs[0]);
  const channels = out?.shape[1];
  if (!out || out.shape.length < 3 || typeof channels !== 'number' || channels <= 0) return false;
  const [xs, ws, ys] = [inputs[1], inputs[4], inputs[6]].map(floatConst);
  if (!xs || !ys || !ws || xs.data.length !== 1 || ys.data.length !== 1) return false;
  if (ws.data.length !== 1 && (ws.data.length !== channels || ws.dims.length !== 1)) return false;
  const zp = constValueOf(inputs[7]?.node);
  if (zp?.data.length !== 1 || zp.type !== out.dtype) return false;
  // a bias whose values the kernel's plan may read once
  const bias = inputs[8] ? constValueOf(inputs[8].node) : undefined;
  if (inputs[8] && (bias?.type !== 'int32' || bias.data.length !== channels)) return false;
  return true;
}

/** QLinearConv with constant scales and bias becomes tsge::RequantizedConv (O3). */
export const qlinearConvFusion: FusionPassV1 = {
  specVersion: 'v1',
  name: 'qlinear-conv',
  level: 3,
  patterns: () => patterns,
  requirements: requirementsHold,
  replace(m, graph) {
    const conv = m.nodes.get('conv') as Node;
    const i = inputsOf(m);
    const [xs, ws, ys] = [i[1], i[4], i[6]].map(floatConst) as HostTensor[];
    const x = xs.data[0] as number;
    const y = ys.data[0] as number;
    const scale = Float32Array.from(ws.data as Float32Array, (w) => Math.fround((x * w) / y));
    const scaleNode = addConst(graph, uniqueName(graph, `${conv.name}_scale`), createTensor('float32', [scale.length], scale));
    const attrs = new Map(conv.opDesc.attrs);
    attrs.set('exact_product', attr.int(1));
    const node = graph.addNode(
      createOpDesc({
        name: uniqueName(graph, `${conv.name}_requantized`),
        type: REQUANTIZED_CONV,
        domain: TSGE_DOMAIN,
        attrs,
        outputDescs: [...conv.opDesc.outputDescs.slice(0, 1)],
        outputNames: [conv.opDesc.outputNames[0] ?? conv.name],
      }),
      { inputs: 9, outputs: 1 },
    );
    replaceMatchWith(graph, m, node, [i[0], i[3], i[2], i[5], i[8], scaleNode.outData[0], i[7]]);
    return [node];
  },
};

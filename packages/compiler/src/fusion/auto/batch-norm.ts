import type { Graph, Node, OutDataAnchor, TensorDesc } from '@tsge/metadef';
import { CONST, constValueOf, createOpDesc, createTensor, isStaticDim, isUnknownRank } from '@tsge/metadef';
import { addConst, uniqueName } from '../../graph-utils.js';
import { batchNormAffine } from '../conv-affine.js';

/**
 * BatchNormalization in inference mode is a per-channel affine, x·a[c] + b[c] (TVM's
 * SimplifyInference runs before FuseOps for this): written as Mul and Add by [C, 1, …, 1]
 * constants it joins the generated kernel around it — after a Conv whose activation keeps it
 * from folding into the weights (PP-OCR's Conv, HardSwish, affine), the Conv's epilogue — rather
 * than making one more pass over the tensor.
 */

/** The per-channel scale and shift of an inference BatchNormalization with constant statistics, else undefined. */
function affineOf(node: Node): { scale: Float32Array; shift: Float32Array; x: OutDataAnchor; desc: TensorDesc } | undefined {
  const isOnnx = node.opDesc.domain === '' || node.opDesc.domain === 'ai.onnx';
  if (node.type !== 'BatchNormalization' || !isOnnx || node.inData.length !== 5) return undefined;
  if (node.inControl.peers.length > 0 || node.outControl.peers.length > 0) return undefined;
  const x = node.inData[0]?.peer;
  const desc = x?.node.opDesc.outputDescs[x.index];
  const out = node.opDesc.outputDescs[0];
  const channels = desc?.shape[1];
  if (!x || desc?.dtype !== 'float32' || !out || isUnknownRank(desc.shape) || desc.shape.length < 2) return undefined;
  if (channels === undefined || !isStaticDim(channels) || channels === 0) return undefined;
  // one-dimensional statistics (a [C, 1, 1] scale would broadcast differently)
  const statistics = node.inData.slice(1).map((i) => constValueOf(i.peer?.node));
  if (statistics.some((t) => t?.dims.length !== 1)) return undefined;
  const affine = batchNormAffine(node, statistics, channels);
  return affine && { ...affine, x, desc: out };
}

/** Rewrites each inference BatchNormalization with constant statistics as Mul and Add; returns how many. */
export function batchNormsAsAffine(graph: Graph): number {
  let count = 0;
  for (const node of [...graph.nodes]) {
    const affine = affineOf(node);
    if (!affine) continue;
    const { scale: a, shift: b, x, desc } = affine;
    const dims = [a.length, ...new Array<number>(Math.max(0, desc.shape.length - 2)).fill(1)];
    const scale = addConst(graph, `${node.name}_a`, createTensor('float32', dims, a));
    const shift = addConst(graph, `${node.name}_b`, createTensor('float32', dims, b));
    const op = (type: string, name: string, output: string) =>
      graph.addNode(
        createOpDesc({
          name: uniqueName(graph, name),
          type,
          outputDescs: [{ ...desc, shape: [...desc.shape], originShape: [...desc.originShape] }],
          outputNames: [output],
        }),
        { inputs: 2, outputs: 1 },
      );
    const mul = op('Mul', `${node.name}_scale`, `${node.name}_scale`);
    // the Add gives the BatchNormalization's output (its name too)
    const add = op('Add', `${node.name}_shift`, node.opDesc.outputNames[0] ?? node.name);
    graph.link(x, mul.inData[0] as Node['inData'][number]);
    graph.link(scale.outData[0] as OutDataAnchor, mul.inData[1] as Node['inData'][number]);
    graph.link(mul.outData[0] as OutDataAnchor, add.inData[0] as Node['inData'][number]);
    graph.link(shift.outData[0] as OutDataAnchor, add.inData[1] as Node['inData'][number]);
    graph.replaceAllUses(node.outData[0] as OutDataAnchor, add.outData[0] as OutDataAnchor);
    const statistics = node.inData.slice(1).map((i) => i.peer?.node);
    graph.removeNode(node);
    // statistics no other node reads are not weights any more
    for (const s of new Set(statistics)) if (s?.type === CONST && s.outData.every((o) => o.peers.length === 0)) graph.removeNode(s);
    count++;
  }
  return count;
}

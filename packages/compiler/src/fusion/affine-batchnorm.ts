import type { FusionMatch, FusionPassV1, Node } from '@tsge/metadef';
import { attr, constValueOf, createOpDesc, createTensor } from '@tsge/metadef';
import { addConst, uniqueName } from '../graph-utils.js';
import { perChannel } from './conv-affine.js';
import { replaceMatchWith } from './matcher.js';
import { descOf, pattern } from './patterns.js';

// x * s + b with per-channel (or scalar) constants that no Conv could absorb, such as PP-LCNet's
// learnable affine block before a padded depthwise Conv: one BatchNormalization (mean 0,
// variance 1, epsilon 0) computes it in one pass instead of two.
const mulAdd = pattern('mul-add', 3, (op, x) => [op('Add', [op('Mul', [x[0], x[1]], 'scale'), x[2]], 'shift')]);

function channelParams(m: FusionMatch): { scale: Float32Array; shift: Float32Array } | undefined {
  const x = descOf(m.inputs[0]);
  const channels = x?.shape[1];
  if (x?.dtype !== 'float32' || x.shape.length < 2 || typeof channels !== 'number' || channels <= 0) return undefined;
  const scale = perChannel(constValueOf(m.inputs[1]?.node), x.shape.length, channels);
  const shift = perChannel(constValueOf(m.inputs[2]?.node), x.shape.length, channels);
  return scale && shift ? { scale: Float32Array.from(scale), shift: Float32Array.from(shift) } : undefined;
}

/** Mul then Add by per-channel constants becomes one BatchNormalization (O2). */
export function affineBatchNormFusion(supported: (type: string) => boolean): FusionPassV1 {
  return {
    specVersion: 'v1',
    name: 'affine-batchnorm',
    level: 2,
    patterns: () => [mulAdd],
    requirements: (m) =>
      supported('BatchNormalization') &&
      channelParams(m) !== undefined &&
      descOf(m.outputs[0])?.shape.join() === descOf(m.inputs[0])?.shape.join(),
    replace(m, graph) {
      const { scale, shift } = channelParams(m) as { scale: Float32Array; shift: Float32Array };
      const last = m.nodes.get('shift') as Node;
      const channels = scale.length;
      const vector = (suffix: string, data: Float32Array) =>
        addConst(graph, `${last.name}_${suffix}`, createTensor('float32', [channels], data)).outData[0];
      const node = graph.addNode(
        createOpDesc({
          name: uniqueName(graph, `${last.name}_affine`),
          type: 'BatchNormalization',
          attrs: [['epsilon', attr.float(0)]],
          outputDescs: [...last.opDesc.outputDescs.slice(0, 1)],
          outputNames: [last.opDesc.outputNames[0] ?? last.name],
        }),
        { inputs: 5, outputs: 1 },
      );
      replaceMatchWith(graph, m, node, [
        m.inputs[0],
        vector('scale', scale),
        vector('bias', shift),
        vector('mean', new Float32Array(channels)),
        vector('var', new Float32Array(channels).fill(1)),
      ]);
      return [node];
    },
  };
}

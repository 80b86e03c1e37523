import type { FusionPassV1, Node } from '@tsge/metadef';
import { attr, createOpDesc } from '@tsge/metadef';
import { uniqueName } from '../graph-utils.js';
import { replaceMatchWith } from './matcher.js';
import { constNumbers, descOf, isConstScalar, pattern } from './patterns.js';

// x / sqrt(mean(x^2) + eps) * gamma, or x * reciprocal(sqrt(...)) * gamma, over the last axis
const rmsDiv = pattern('rms-norm', 5, (op, x) => {
  const ms = op('ReduceMean', [op('Pow', [x[0], x[1]], 'pow'), x[2]], 'mean');
  const rms = op('Sqrt', [op('Add', [ms, x[3]], 'add_eps')], 'sqrt');
  return [op('Mul', [op('Div', [x[0], rms], 'div'), x[4]], 'scale')];
});
const rmsReciprocal = pattern('rms-norm-reciprocal', 5, (op, x) => {
  const ms = op('ReduceMean', [op('Pow', [x[0], x[1]], 'pow'), x[2]], 'mean');
  const inv = op('Reciprocal', [op('Sqrt', [op('Add', [ms, x[3]], 'add_eps')], 'sqrt')], 'reciprocal');
  return [op('Mul', [op('Mul', [x[0], inv], 'div'), x[4]], 'scale')];
});

/** RMSNorm written with Pow/ReduceMean/Sqrt becomes RMSNormalization. */
export function rmsNormFusion(supported: (type: string) => boolean): FusionPassV1 {
  return {
    specVersion: 'v1',
    name: 'rms-norm',
    level: 2,
    patterns: () => [rmsDiv, rmsReciprocal],
    requirements(m) {
      const x = descOf(m.inputs[0]);
      const gamma = descOf(m.inputs[4]);
      if (!supported('RMSNormalization') || !x || x.dtype !== 'float32' || x.shape[0] === -2 || !gamma) return false;
      const rank = x.shape.length;
      const axes = constNumbers(m.inputs[2]);
      const keep = (m.nodes.get('mean') as Node).opDesc.attrs.get('keepdims')?.value ?? 1;
      return (
        keep === 1 &&
        axes?.length === 1 &&
        (axes[0] === -1 || axes[0] === rank - 1) &&
        isConstScalar(m.inputs[1], 2) &&
        constNumbers(m.inputs[3])?.length === 1 &&
        gamma.shape.length === 1 &&
        gamma.shape[0] === x.shape[rank - 1]
      );
    },
    replace(m, graph) {
      const last = m.nodes.get('scale') as Node;
      const rms = graph.addNode(
        createOpDesc({
          name: uniqueName(graph, `${last.name}_rmsnorm`),
          type: 'RMSNormalization',
          attrs: [
            ['axis', attr.int(-1)],
            ['epsilon', attr.float(constNumbers(m.inputs[3])?.[0] ?? 1e-5)],
          ],
          outputDescs: [...last.opDesc.outputDescs.slice(0, 1)],
          outputNames: [last.opDesc.outputNames[0] ?? last.name],
        }),
        { inputs: 2, outputs: 1 },
      );
      replaceMatchWith(graph, m, rms, [m.inputs[0], m.inputs[4]]);
      return [rms];
    },
  };
}

import type { FusionPassV1, Node } from '@tsge/metadef';
import { attr, createOpDesc } from '@tsge/metadef';
import { uniqueName } from '../graph-utils.js';
import { replaceMatchWith } from './matcher.js';
import { constNumbers, descOf, isConstScalar, pattern } from './patterns.js';

// x * 0.5 * (1 + erf(x / sqrt(2))), in the two association orders exporters emit
const geluA = pattern('gelu', 4, (op, x) => {
  const erf = op('Erf', [op('Div', [x[0], x[1]], 'div')], 'erf');
  const plus = op('Add', [erf, x[2]], 'add');
  return [op('Mul', [op('Mul', [x[0], plus], 'mul1'), x[3]], 'mul2')];
});
const geluB = pattern('gelu-half-first', 4, (op, x) => {
  const erf = op('Erf', [op('Div', [x[0], x[1]], 'div')], 'erf');
  const plus = op('Add', [erf, x[2]], 'add');
  return [op('Mul', [op('Mul', [x[0], x[3]], 'mul1'), plus], 'mul2')];
});

/** GELU written with Erf becomes one Gelu node. */
export function geluFusion(supported: (type: string) => boolean): FusionPassV1 {
  return {
    specVersion: 'v1',
    name: 'gelu',
    level: 2,
    patterns: () => [geluA, geluB],
    requirements(m) {
      return (
        supported('Gelu') &&
        isConstScalar(m.inputs[1], Math.SQRT2, 1e-3) &&
        isConstScalar(m.inputs[2], 1) &&
        isConstScalar(m.inputs[3], 0.5) &&
        descOf(m.inputs[0])?.dtype === 'float32'
      );
    },
    replace(m, graph) {
      const last = m.nodes.get('mul2') as Node;
      const gelu = graph.addNode(
        createOpDesc({
          name: uniqueName(graph, `${last.name}_gelu`),
          type: 'Gelu',
          outputDescs: [...last.opDesc.outputDescs.slice(0, 1)],
          outputNames: [last.opDesc.outputNames[0] ?? last.name],
        }),
        { inputs: 1, outputs: 1 },
      );
      replaceMatchWith(graph, m, gelu, [m.inputs[0]]);
      return [gelu];
    },
  };
}

// (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) * gamma + beta over the last axis
const layerNorm = pattern('layer-norm', 7, (op, x) => {
  const mean = op('ReduceMean', [x[0], x[1]], 'mean1');
  const centered = op('Sub', [x[0], mean], 'sub');
  const variance = op('ReduceMean', [op('Pow', [centered, x[2]], 'pow'), x[3]], 'mean2');
  const std = op('Sqrt', [op('Add', [variance, x[4]], 'add_eps')], 'sqrt');
  const normed = op('Div', [centered, std], 'div');
  return [op('Add', [op('Mul', [normed, x[5]], 'scale'), x[6]], 'shift')];
});

function isLastAxis(axes: number[] | undefined, rank: number): boolean {
  return axes !== undefined && axes.length === 1 && (axes[0] === -1 || axes[0] === rank - 1);
}

/** LayerNorm written with ReduceMean/Sub/Pow/Sqrt/Div becomes LayerNormalization. */
export function layerNormFusion(supported: (type: string) => boolean): FusionPassV1 {
  return {
    specVersion: 'v1',
    name: 'layer-norm',
    level: 2,
    patterns: () => [layerNorm],
    requirements(m) {
      const x = descOf(m.inputs[0]);
      if (!supported('LayerNormalization') || !x || x.dtype !== 'float32' || x.shape[0] === -2) return false;
      const rank = x.shape.length;
      const keep = (n: string) => (m.nodes.get(n) as Node).opDesc.attrs.get('keepdims')?.value ?? 1;
      const gamma = descOf(m.inputs[5]);
      const beta = descOf(m.inputs[6]);
      const last = x.shape[rank - 1];
      const vectorOk = (d: typeof gamma) => d !== undefined && d.shape.length === 1 && d.shape[0] === last;
      return (
        keep('mean1') === 1 &&
        keep('mean2') === 1 &&
        isLastAxis(constNumbers(m.inputs[1]), rank) &&
        isLastAxis(constNumbers(m.inputs[3]), rank) &&
        isConstScalar(m.inputs[2], 2) &&
        (constNumbers(m.inputs[4])?.length ?? 0) === 1 &&
        vectorOk(gamma) &&
        vectorOk(beta)
      );
    },
    replace(m, graph) {
      const last = m.nodes.get('shift') as Node;
      const epsilon = constNumbers(m.inputs[4])?.[0] ?? 1e-5;
      const ln = graph.addNode(
        createOpDesc({
          name: uniqueName(graph, `${last.name}_layernorm`),
          type: 'LayerNormalization',
          attrs: [
            ['axis', attr.int(-1)],
            ['epsilon', attr.float(epsilon)],
          ],
          outputDescs: [...last.opDesc.outputDescs.slice(0, 1)],
          outputNames: [last.opDesc.outputNames[0] ?? last.name],
        }),
        { inputs: 3, outputs: 1 },
      );
      replaceMatchWith(graph, m, ln, [m.inputs[0], m.inputs[5], m.inputs[6]]);
      return [ln];
    },
  };
}

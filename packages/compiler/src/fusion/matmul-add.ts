import type { FusionPassV1, Node } from '@tsge/metadef';
import { createOpDesc } from '@tsge/metadef';
import { uniqueName } from '../graph-utils.js';
import { replaceMatchWith } from './matcher.js';
import { descOf, pattern } from './patterns.js';

const matmulAdd = pattern('matmul-add', 3, (op, x) => [op('Add', [op('MatMul', [x[0], x[1]], 'matmul'), x[2]], 'add')]);

/** MatMul of 2-D operands plus a bias broadcastable to the result becomes Gemm. */
export function matmulAddFusion(supported: (type: string) => boolean): FusionPassV1 {
  return {
    specVersion: 'v1',
    name: 'matmul-add-gemm',
    level: 2,
    patterns: () => [matmulAdd],
    requirements(m) {
      if (!supported('Gemm')) return false;
      const [a, b, c] = m.inputs.map(descOf);
      if (!a || !b || !c || a.shape.length !== 2 || b.shape.length !== 2 || c.shape.length > 2) return false;
      if (a.dtype !== 'float32' || b.dtype !== 'float32' || c.dtype !== 'float32') return false;
      const n = b.shape[1];
      const mDim = a.shape[0];
      // unidirectional broadcast of C to [M, N]
      const cn = c.shape[c.shape.length - 1];
      const cm = c.shape.length === 2 ? c.shape[0] : 1;
      return (c.shape.length === 0 || cn === 1 || cn === n) && (cm === 1 || cm === mDim);
    },
    replace(m, graph) {
      const add = m.nodes.get('add') as Node;
      const matmul = m.nodes.get('matmul') as Node;
      const gemm = graph.addNode(
        createOpDesc({
          name: uniqueName(graph, `${matmul.name}_gemm`),
          type: 'Gemm',
          outputDescs: [...add.opDesc.outputDescs.slice(0, 1)],
          outputNames: [add.opDesc.outputNames[0] ?? add.name],
        }),
        { inputs: 3, outputs: 1 },
      );
      replaceMatchWith(graph, m, gemm, m.inputs);
      return [gemm];
    },
  };
}

import type { FusionPassV1, Node } from '@tsge/metadef';
import { createOpDesc, createTensor, shapeSize } from '@tsge/metadef';
import { addConst, uniqueName } from '../graph-utils.js';
import { replaceMatchWith } from './matcher.js';
import { descOf, pattern } from './patterns.js';

// x + x * s with a small s broadcast over x (an attention or squeeze-excite gate plus its
// residual, as in PP-OCR's RSE-FPN): computing x * (1 + s) adds over s instead of over x.
const gatedResidual = pattern('scale-residual', 2, (op, x) => [op('Add', [x[0], op('Mul', [x[0], x[1]], 'gate')], 'residual')]);

/** x + x * s becomes x * (s + 1) when s has fewer elements than x (O2). */
export function scaleResidualFusion(supported: (type: string) => boolean): FusionPassV1 {
  return {
    specVersion: 'v1',
    name: 'scale-residual',
    level: 2,
    patterns: () => [gatedResidual],
    requirements(m) {
      const x = descOf(m.inputs[0]);
      const s = descOf(m.inputs[1]);
      const out = descOf(m.outputs[0]);
      if (!x || !s || !out || x.dtype !== 'float32' || s.dtype !== 'float32') return false;
      const xSize = shapeSize(x.shape);
      const sSize = shapeSize(s.shape);
      return (
        supported('Add') &&
        supported('Mul') &&
        xSize !== undefined &&
        sSize !== undefined &&
        sSize < xSize &&
        s.shape.length <= x.shape.length &&
        out.shape.join() === x.shape.join()
      );
    },
    replace(m, graph) {
      const residual = m.nodes.get('residual') as Node;
      const s = m.inputs[1];
      const one = addConst(graph, `${residual.name}_one`, createTensor('float32', [], Float32Array.of(1)));
      const plusOne = graph.addNode(
        createOpDesc({
          name: uniqueName(graph, `${residual.name}_gate_plus_one`),
          type: 'Add',
          outputDescs: [descOf(s)].filter((d) => d !== undefined),
        }),
        { inputs: 2, outputs: 1 },
      );
      if (s) graph.link(s, plusOne.inData[0] as Node['inData'][number]);
      graph.link(one.outData[0] as Node['outData'][number], plusOne.inData[1] as Node['inData'][number]);
      const scaled = graph.addNode(
        createOpDesc({
          name: uniqueName(graph, `${residual.name}_scaled`),
          type: 'Mul',
          outputDescs: [...residual.opDesc.outputDescs.slice(0, 1)],
          outputNames: [residual.opDesc.outputNames[0] ?? residual.name],
        }),
        { inputs: 2, outputs: 1 },
      );
      replaceMatchWith(graph, m, scaled, [m.inputs[0], plusOne.outData[0]]);
      return [plusOne, scaled];
    },
  };
}

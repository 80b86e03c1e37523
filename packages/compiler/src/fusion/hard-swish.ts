import type { AttrValue, FusionMatch, FusionPassV1, Graph, Node, OutDataAnchor, Value } from '@tsge/metadef';
import { attr, constValueOf, createOpDesc } from '@tsge/metadef';
import { uniqueName } from '../graph-utils.js';
import { replaceMatchWith } from './matcher.js';
import { descOf, isConstScalar, pattern } from './patterns.js';

// Exporters (paddle2onnx, torch before opset 14) write hard-swish as x * Relu6(x + 3) / 6 and
// hard-sigmoid as Relu6(x + 3) / 6, with Relu6 as Clip(·, 0, 6) and "/ 6" as Div by 6 or Mul by 1/6.
const EXACT = 1e-6;
const SCALE = { Scale: ['Div', 'Mul'] };

// inputs: x, 3, 0, 6, divisor (6 for Div, 1/6 for Mul)
type Op = (type: string, args: readonly Value[], nodeName: string) => Value;
const relu6 = (op: Op, x: readonly Value[]) => op('Clip', [op('Add', [x[0], x[1]], 'add'), x[2], x[3]], 'clip');

const hardSigmoidScaled = pattern('hard-sigmoid', 5, (op, x) => [op('Scale', [relu6(op, x), x[4]], 'scale')], SCALE);
const hardSwishScaledLast = pattern(
  'hard-swish',
  5,
  (op, x) => [op('Scale', [op('Mul', [x[0], relu6(op, x)], 'mul'), x[4]], 'scale')],
  SCALE,
);
const hardSwishScaledFirst = pattern(
  'hard-swish-scaled-input',
  5,
  (op, x) => [op('Mul', [op('Scale', [x[0], x[4]], 'scale'), relu6(op, x)], 'mul')],
  SCALE,
);
const hardSwishOfHardSigmoid = pattern('hard-swish-of-hard-sigmoid', 1, (op, x) => [
  op('Mul', [x[0], op('HardSigmoid', [x[0]], 'hard_sigmoid')], 'mul'),
]);

/** The constant is a one-element tensor whose rank cannot broadcast `x` to a larger shape. */
function isScalarFor(anchor: OutDataAnchor | undefined, value: number, x: OutDataAnchor | undefined): boolean {
  const rank = descOf(x)?.shape.length;
  const dims = constValueOf(anchor?.node)?.dims;
  if (!dims || !isConstScalar(anchor, value, EXACT)) return false;
  return dims.length === 0 || (rank !== undefined && descOf(x)?.shape[0] !== -2 && dims.length <= rank);
}

/** x + 3 clipped to [0, 6] then divided by 6 (or times 1/6), with exactly those constants. */
function isRelu6Over6(m: FusionMatch): boolean {
  const x = m.inputs[0];
  const divides = (m.nodes.get('scale') as Node).type === 'Div';
  // Div must divide by the constant: the matcher only binds Div's second input to it
  return (
    descOf(x)?.dtype === 'float32' &&
    isScalarFor(m.inputs[1], 3, x) &&
    isScalarFor(m.inputs[2], 0, x) &&
    isScalarFor(m.inputs[3], 6, x) &&
    isScalarFor(m.inputs[4], divides ? 6 : 1 / 6, x)
  );
}

function replaceWithUnary(graph: Graph, m: FusionMatch, type: string, attrs: readonly (readonly [string, AttrValue])[]): Node {
  const last = m.outputs[0]?.node as Node;
  const node = graph.addNode(
    createOpDesc({
      name: uniqueName(graph, `${last.name}_${type.toLowerCase()}`),
      type,
      attrs,
      outputDescs: [...last.opDesc.outputDescs.slice(0, 1)],
      outputNames: [last.opDesc.outputNames[0] ?? last.name],
    }),
    { inputs: 1, outputs: 1 },
  );
  return replaceMatchWith(graph, m, node, [m.inputs[0]]);
}

/** Clip(x + 3, 0, 6) / 6 becomes HardSigmoid(alpha 1/6, beta 0.5) (O2). */
export function hardSigmoidFusion(supported: (type: string) => boolean): FusionPassV1 {
  return {
    specVersion: 'v1',
    name: 'hard-sigmoid',
    level: 2,
    patterns: () => [hardSigmoidScaled],
    requirements: (m) => supported('HardSigmoid') && isRelu6Over6(m),
    replace: (m, graph) => [
      replaceWithUnary(graph, m, 'HardSigmoid', [
        ['alpha', attr.float(1 / 6)],
        ['beta', attr.float(0.5)],
      ]),
    ],
  };
}

/**
 * x * Clip(x + 3, 0, 6) / 6 (either association, Div by 6 or Mul by 1/6) and
 * x * HardSigmoid(x, alpha 1/6, beta 0.5) become HardSwish (O2). Runs after `hard-sigmoid`, which
 * turns x * (Clip(x + 3, 0, 6) / 6) into the HardSigmoid form.
 */
export function hardSwishFusion(supported: (type: string) => boolean): FusionPassV1 {
  return {
    specVersion: 'v1',
    name: 'hard-swish',
    level: 2,
    patterns: () => [hardSwishScaledLast, hardSwishScaledFirst, hardSwishOfHardSigmoid],
    requirements(m) {
      if (!supported('HardSwish')) return false;
      if (m.pattern !== hardSwishOfHardSigmoid.name) return isRelu6Over6(m);
      const attrs = (m.nodes.get('hard_sigmoid') as Node).opDesc.attrs;
      const value = (name: string, fallback: number) => {
        const a = attrs.get(name);
        return a?.kind === 'float' ? a.value : fallback;
      };
      return (
        descOf(m.inputs[0])?.dtype === 'float32' &&
        Math.abs(value('alpha', 0.2) - 1 / 6) <= EXACT &&
        Math.abs(value('beta', 0.5) - 0.5) <= EXACT
      );
    },
    replace: (m, graph) => [replaceWithUnary(graph, m, 'HardSwish', [])],
  };
}

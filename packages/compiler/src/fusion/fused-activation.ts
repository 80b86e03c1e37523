import type { FusionMatch, FusionPassV1, FusionPattern, Node } from '@tsge/metadef';
import { TSGE_DOMAIN, attr, createOpDesc } from '@tsge/metadef';
import { uniqueName } from '../graph-utils.js';
import { FUSABLE_ACTIVATIONS, FUSED_CONV, FUSED_GEMM, FUSED_MATMUL } from '@tsge/ops';
import { replaceMatchWith } from './matcher.js';
import { constNumbers, descOf, pattern } from './patterns.js';

const UNARY: readonly string[] = FUSABLE_ACTIVATIONS;

function patternsFor(base: string): FusionPattern[] {
  const out: FusionPattern[] = [];
  for (const arity of [2, 3]) {
    out.push(
      pattern(`${base}${arity}-act`, arity, (op, x) => [op('Act', [op(base, x.slice(0, arity), 'base')], 'act')], { Act: UNARY }),
      pattern(`${base}${arity}-clip`, arity + 2, (op, x) => [
        op('Clip', [op(base, x.slice(0, arity), 'base'), x[arity], x[arity + 1]], 'act'),
      ]),
    );
  }
  return out;
}

/** Activation name and params of a match, or undefined when it cannot be fused. */
function activationOf(m: FusionMatch): { name: string; params: number[] } | undefined {
  const act = m.nodes.get('act');
  if (!act) return { name: 'None', params: [] };
  const attrs = act.opDesc.attrs;
  const num = (name: string, fallback: number) => {
    const a = attrs.get(name);
    return a?.kind === 'float' || a?.kind === 'int' ? a.value : fallback;
  };
  switch (act.type) {
    case 'LeakyRelu':
      return { name: act.type, params: [num('alpha', 0.01)] };
    case 'HardSigmoid':
      return { name: act.type, params: [num('alpha', 0.2), num('beta', 0.5)] };
    case 'Gelu': {
      const a = attrs.get('approximate');
      return { name: act.type, params: [a?.kind === 'string' && a.value === 'tanh' ? 1 : 0] };
    }
    case 'Clip': {
      if (act.inData.length <= 1 || !act.inData[1]?.peer) return { name: 'Clip', params: [] };
      const lo = constNumbers(act.inData[1]?.peer);
      const hi = act.inData[2]?.peer ? constNumbers(act.inData[2]?.peer) : [Number.POSITIVE_INFINITY];
      if (lo?.length !== 1 || hi?.length !== 1) return undefined;
      return { name: 'Clip', params: [lo[0] as number, hi[0] as number] };
    }
    default:
      return { name: act.type, params: [] };
  }
}

function fusion(name: string, base: string, fused: string, supported: (type: string, domain?: string) => boolean): FusionPassV1 {
  return {
    specVersion: 'v1',
    name,
    level: 3,
    patterns: () => patternsFor(base),
    requirements(m) {
      const out = descOf(m.outputs[0]);
      return supported(fused, TSGE_DOMAIN) && out?.dtype === 'float32' && activationOf(m) !== undefined;
    },
    replace(m, graph) {
      const baseNode = m.nodes.get('base') as Node;
      const act = m.nodes.get('act') as Node;
      const activation = activationOf(m) as { name: string; params: number[] };
      const node = graph.addNode(
        createOpDesc({
          name: uniqueName(graph, `${baseNode.name}_${activation.name.toLowerCase()}`),
          type: fused,
          domain: TSGE_DOMAIN,
          attrs: [
            ...baseNode.opDesc.attrs,
            ['activation', attr.string(activation.name)],
            ['activation_params', attr.floats(activation.params)],
          ],
          outputDescs: [...act.opDesc.outputDescs.slice(0, 1)],
          outputNames: [act.opDesc.outputNames[0] ?? act.name],
        }),
        { inputs: baseNode.inData.length, outputs: 1 },
      );
      replaceMatchWith(
        graph,
        m,
        node,
        baseNode.inData.map((a) => a.peer),
      );
      return [node];
    },
  };
}

const matmulPatterns: FusionPattern[] = [
  pattern('matmul-bias-act', 3, (op, x) => [op('Act', [op('Add', [op('MatMul', [x[0], x[1]], 'base'), x[2]], 'bias')], 'act')], {
    Act: UNARY,
  }),
  pattern('matmul-bias-clip', 5, (op, x) => [
    op('Clip', [op('Add', [op('MatMul', [x[0], x[1]], 'base'), x[2]], 'bias'), x[3], x[4]], 'act'),
  ]),
  pattern('matmul-bias', 3, (op, x) => [op('Add', [op('MatMul', [x[0], x[1]], 'base'), x[2]], 'bias')]),
];

/** MatMul (any rank) + a bias over the last axis (+ an activation) becomes tsge::FusedMatMul (O3). */
function matmulFusion(supported: (type: string, domain?: string) => boolean): FusionPassV1 {
  return {
    specVersion: 'v1',
    name: 'fused-matmul-bias-activation',
    level: 3,
    patterns: () => matmulPatterns,
    requirements(m) {
      const out = descOf(m.outputs[0]);
      const product = descOf((m.nodes.get('base') as Node).outData[0]);
      const bias = descOf(m.inputs[2]);
      const last = product?.shape[product.shape.length - 1];
      const sameShape = out !== undefined && product !== undefined && out.shape.join() === product.shape.join();
      return (
        supported(FUSED_MATMUL, TSGE_DOMAIN) &&
        out?.dtype === 'float32' &&
        sameShape &&
        typeof last === 'number' &&
        last > 0 &&
        bias?.shape.length === 1 &&
        bias.shape[0] === last &&
        activationOf(m) !== undefined
      );
    },
    replace(m, graph) {
      const base = m.nodes.get('base') as Node;
      const last = m.nodes.get('act') ?? (m.nodes.get('bias') as Node);
      const activation = activationOf(m) as { name: string; params: number[] };
      const node = graph.addNode(
        createOpDesc({
          name: uniqueName(graph, `${base.name}_fused`),
          type: FUSED_MATMUL,
          domain: TSGE_DOMAIN,
          attrs: [
            ['activation', attr.string(activation.name)],
            ['activation_params', attr.floats(activation.params)],
          ],
          outputDescs: [...last.opDesc.outputDescs.slice(0, 1)],
          outputNames: [last.opDesc.outputNames[0] ?? last.name],
        }),
        { inputs: 3, outputs: 1 },
      );
      replaceMatchWith(graph, m, node, [m.inputs[0], m.inputs[1], m.inputs[2]]);
      return [node];
    },
  };
}

/** Conv/Gemm/MatMul (+ bias) followed by an activation become tsge::FusedConv / FusedGemm / FusedMatMul (O3). */
export function fusedActivationFusions(supported: (type: string, domain?: string) => boolean): FusionPassV1[] {
  return [
    fusion('fused-conv-activation', 'Conv', FUSED_CONV, supported),
    fusion('fused-gemm-activation', 'Gemm', FUSED_GEMM, supported),
    matmulFusion(supported),
  ];
}

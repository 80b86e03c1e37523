import type { Graph } from '../graph/graph.js';
import type { Node } from '../graph/node.js';
import { CONST, DATA, NET_OUTPUT, NO_OP, VARIABLE } from '../graph/op-desc.js';
import { inferNode } from '../ops/infer-node.js';
import type { OpDefinitionV1, ParamSpec } from '../ops/op-definition.js';
import type { OpRegistry } from '../ops/op-registry.js';
import type { AttrKind } from '../types/attr.js';
import { type Shape, isUnknownRank, shapeToString } from '../types/shape.js';
import type { TensorDesc } from '../types/tensor-desc.js';
import type { Reporter } from './reporter.js';

/** GE's structural node types need no op definition. */
const STRUCTURAL = new Set([DATA, CONST, NET_OUTPUT, VARIABLE, NO_OP]);

/** Attribute kinds a reader accepts for a declared kind (as createAttrReader does). */
const COMPATIBLE: Partial<Record<AttrKind, readonly AttrKind[]>> = {
  float: ['int'],
  floats: ['ints'],
  bool: ['int'],
  int: ['bool'],
};

function definitionOf(node: Node, ops: OpRegistry): OpDefinitionV1 | undefined {
  return ops.get(node.type, node.opDesc.domain);
}

/** The param that slot `index` binds to: a variadic last param takes every remaining slot. */
function paramAt(params: readonly ParamSpec[], index: number): ParamSpec | undefined {
  if (index < params.length) return params[index];
  const last = params[params.length - 1];
  return last?.option === 'variadic' ? last : undefined;
}

/** Allowed slot counts: trailing optional params may be left out; a variadic one needs its minimum. */
function arity(params: readonly ParamSpec[]): { min: number; max: number } {
  const last = params[params.length - 1];
  if (last?.option === 'variadic') return { min: params.length - 1 + (last.minArity ?? 1), max: Number.POSITIVE_INFINITY };
  let min = 0;
  params.forEach((p, i) => {
    if (p.option === 'required') min = i + 1;
  });
  return { min, max: params.length };
}

const range = (r: { min: number; max: number }): string =>
  r.max === Number.POSITIVE_INFINITY ? `at least ${r.min}` : r.min === r.max ? `${r.min}` : `${r.min}..${r.max}`;

/** Each node's op is registered; arity, required inputs and attribute kinds follow its schema. */
export function checkSchemas(graph: Graph, ops: OpRegistry, report: Reporter): void {
  for (const node of graph.nodes) {
    const def = definitionOf(node, ops);
    if (!def) {
      if (!STRUCTURAL.has(node.type)) report.node('TSGE-E1015', graph, node, { op: `${node.opDesc.domain}::${node.type}` });
      continue;
    }
    for (const [side, count, params] of [
      ['inputs', node.inData.length, def.inputs],
      ['outputs', node.outData.length, def.outputs],
    ] as const) {
      const allowed = arity(params);
      if (count < allowed.min || count > allowed.max)
        report.node('TSGE-E1017', graph, node, { actual: count, what: side, expected: range(allowed) });
    }
    node.inData.forEach((anchor, i) => {
      if (!anchor.peer && paramAt(def.inputs, i)?.option === 'required') report.node('TSGE-E1005', graph, node, { index: i });
    });
    for (const spec of def.attributes) {
      const value = node.opDesc.attrs.get(spec.name);
      if (!value) {
        if (spec.required) report.node('TSGE-E1016', graph, node, { attr: spec.name, reason: 'is required but missing' });
        continue;
      }
      if (value.kind !== spec.kind && !COMPATIBLE[spec.kind]?.includes(value.kind)) {
        report.node('TSGE-E1016', graph, node, { attr: spec.name, reason: `has kind ${value.kind}, expected ${spec.kind}` });
      }
    }
  }
}

/** Symbols and unknown dims match anything; known dims must be equal. */
function compatibleShapes(recorded: Shape, inferred: Shape): boolean {
  if (isUnknownRank(recorded) || isUnknownRank(inferred)) return true;
  if (recorded.length !== inferred.length) return false;
  return recorded.every((d, i) => {
    const e = inferred[i] as Shape[number];
    return typeof d !== 'number' || typeof e !== 'number' || d < 0 || e < 0 || d === e;
  });
}

const describe = (d: TensorDesc): string => `${d.dtype}${shapeToString(d.shape)}`;

/**
 * Re-runs each node's inference on its producers' recorded descs and compares the result with
 * the node's recorded output descs. The graph is restored afterwards.
 */
export function checkInference(graph: Graph, ops: OpRegistry, report: Reporter): void {
  let symbol = 0;
  const newSymbol = (hint = 's'): string => `__verify_${hint}_${++symbol}`;
  for (const node of graph.nodes) {
    if (!definitionOf(node, ops)) continue;
    const desc = node.opDesc;
    const savedOutputs = [...desc.outputDescs];
    const savedInputs = [...desc.inputDescs];
    const problems = inferNode(graph, node, ops, { newSymbol });
    const inferred = [...desc.outputDescs];
    desc.outputDescs.splice(0, desc.outputDescs.length, ...savedOutputs);
    desc.inputDescs.splice(0, desc.inputDescs.length, ...savedInputs);
    for (const p of problems) report.add({ ...p, severity: 'warning' });
    if (problems.length) continue;
    savedOutputs.forEach((recorded, i) => {
      const fresh = inferred[i];
      if (!fresh || fresh === recorded) return;
      if (fresh.dtype !== recorded.dtype || !compatibleShapes(recorded.shape, fresh.shape)) {
        report.node('TSGE-E1010', graph, node, { index: i, actual: describe(recorded), expected: describe(fresh) });
      }
    });
  }
}

import type { FusionPattern, Graph, OutDataAnchor, TensorDesc } from '@tsge/metadef';
import { GraphBuilder, type Value, constValueOf, createTensorDesc, toNumberArray } from '@tsge/metadef';

const any = createTensorDesc('float32', [-2]);

/** Builds a pattern graph: `inputs` Data nodes, then `body` adds op nodes and returns the outputs. */
export function pattern(
  name: string,
  inputs: number,
  body: (op: (type: string, args: readonly Value[], nodeName: string) => Value, x: readonly Value[]) => readonly Value[],
  anyOf?: Record<string, readonly string[]>,
): FusionPattern {
  const b = new GraphBuilder(name);
  const x = Array.from({ length: inputs }, (_, i) => b.input(`in${i}`, 'float32', [-2]));
  const op = (type: string, args: readonly Value[], nodeName: string) => b.op(type, args, { name: nodeName, outputDescs: [any] });
  for (const out of body(op, x)) b.output(out);
  const graph: Graph = b.build();
  return anyOf ? { name, graph, anyOf } : { name, graph };
}

/** Numbers of a constant input, if it is one. */
export function constNumbers(anchor: OutDataAnchor | undefined): number[] | undefined {
  const t = constValueOf(anchor?.node);
  return t ? toNumberArray(t) : undefined;
}

/** A constant scalar (or one-element tensor) equal to `value` within `tolerance`. */
export function isConstScalar(anchor: OutDataAnchor | undefined, value: number, tolerance = 1e-4): boolean {
  const v = constNumbers(anchor);
  return v !== undefined && v.length === 1 && Math.abs((v[0] as number) - value) <= tolerance;
}

export function descOf(anchor: OutDataAnchor | undefined): TensorDesc | undefined {
  return anchor ? anchor.node.opDesc.outputDescs[anchor.index] : undefined;
}

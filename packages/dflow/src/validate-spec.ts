import type { FlowSpecV1 } from './spec.js';

const MAX_NODES = 4096;
const MAX_NAME = 256;
const DTYPES = new Set([
  'float32',
  'float16',
  'bfloat16',
  'float64',
  'int8',
  'int16',
  'int32',
  'int64',
  'uint8',
  'uint16',
  'uint32',
  'uint64',
  'bool',
  'string',
  'bytes',
]);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown, max = 1024): v is number => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= max;
const isName = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= MAX_NAME;

/**
 * Why `value` is not a well-formed FlowSpecV1 read from a file or the network, or undefined.
 * Nodes must come in dependency order; graph points must name submodels (a file never makes us
 * read another path), and functions module references (a file never carries code).
 */
export function checkSpec(value: unknown): string | undefined {
  if (!isObj(value)) return 'the flow spec is not an object';
  if (value.version !== 1) return `unknown flow spec version ${String(value.version)} (known: 1)`;
  if (!isName(value.name)) return 'name is missing or too long';
  if (!Array.isArray(value.inputs) || value.inputs.length > 1024) return 'inputs is not a list';
  for (const [i, input] of value.inputs.entries()) {
    if (!isObj(input) || !isName(input.name)) return `input ${i} has no name`;
    if (input.dtype !== undefined && !DTYPES.has(input.dtype as string)) return `input ${i} has unknown dtype`;
    if (
      input.shape !== undefined &&
      (!Array.isArray(input.shape) || input.shape.length > 16 || !input.shape.every((d) => Number.isSafeInteger(d)))
    )
      return `input ${i} has a bad shape`;
  }
  if (!Array.isArray(value.nodes) || value.nodes.length > MAX_NODES) return `nodes is not a list of at most ${MAX_NODES}`;
  const outputsOf = new Map<string, number>();
  const endpoint = (e: unknown, where: string): string | undefined => {
    if (!isObj(e)) return `${where} is not an endpoint`;
    if (e.kind === 'input')
      return Number.isSafeInteger(e.index) && (e.index as number) >= 0 && (e.index as number) < (value.inputs as unknown[]).length
        ? undefined
        : `${where} names a missing graph input`;
    if (e.kind !== 'node') return `${where} has unknown kind`;
    const count = outputsOf.get(e.node as string);
    if (count === undefined) return `${where} names node ${String(e.node)}, which does not come before it`;
    return Number.isSafeInteger(e.output) && (e.output as number) >= 0 && (e.output as number) < count
      ? undefined
      : `${where} names a missing output of ${String(e.node)}`;
  };
  for (const [n, node] of value.nodes.entries()) {
    if (!isObj(node) || !isName(node.name)) return `node ${n} has no name`;
    const at = `node ${node.name}`;
    if (outputsOf.has(node.name)) return `${at} appears twice`;
    if (!Array.isArray(node.inputs) || node.inputs.length > 1024) return `${at}: inputs is not a list`;
    for (const [i, e] of node.inputs.entries()) {
      const bad = endpoint(e, `${at} input ${i}`);
      if (bad) return bad;
    }
    if (!isCount(node.outputCount) || node.outputCount === 0) return `${at}: bad outputCount`;
    if (!isCount(node.instances, 256) || node.instances === 0) return `${at}: bad instances`;
    if (!isCount(node.queueDepth, 1 << 20) || node.queueDepth === 0) return `${at}: bad queueDepth`;
    const b = node.balance;
    if (!isObj(b) || !(b.kind === 'round-robin' || (b.kind === 'key' && (b.from === 'transaction' || b.from === 'userData'))))
      return `${at}: bad balance`;
    const a = node.align;
    if (
      a !== undefined &&
      a !== null &&
      !(
        isObj(a) &&
        typeof a.timeoutMs === 'number' &&
        a.timeoutMs > 0 &&
        isCount(a.maxPending, 1 << 20) &&
        (a.onMissing === 'drop' || a.onMissing === 'error')
      )
    )
      return `${at}: bad align`;
    const p = node.point;
    if (!isObj(p) || !isName(p.name) || !isCount(p.inputCount) || !isCount(p.outputCount)) return `${at}: bad point`;
    if (
      !Array.isArray(node.inputMap) ||
      node.inputMap.length !== p.inputCount ||
      !node.inputMap.every((m) => isCount(m) && m < (node.inputs as unknown[]).length)
    )
      return `${at}: bad inputMap`;
    if (
      !Array.isArray(node.outputMap) ||
      node.outputMap.length !== node.outputCount ||
      !node.outputMap.every((m) => isCount(m) && m < (p.outputCount as number))
    )
      return `${at}: bad outputMap`;
    switch (p.kind) {
      case 'graph': {
        const m = p.model;
        if (!isObj(m) || m.kind !== 'submodel' || !isName(m.name)) return `${at}: a stored graph point must name a submodel`;
        if (!isObj(p.buildOptions)) return `${at}: bad buildOptions`;
        if (!isCount(p.threads, 256) || p.threads === 0) return `${at}: bad threads`;
        break;
      }
      case 'function': {
        if (!isName(p.module) || !isName(p.export)) return `${at}: a function needs a module specifier and an export name`;
        if (p.inline !== undefined) return `${at}: in-process functions cannot be stored`;
        if (!isObj(p.params)) return `${at}: bad params`;
        if (!Array.isArray(p.groups) || p.groups.length === 0) return `${at}: bad function groups`;
        const seen = new Set<number>();
        for (const g of p.groups) {
          if (!isObj(g) || (g.name !== undefined && g.name !== null && !isName(g.name)) || !Array.isArray(g.inputs))
            return `${at}: bad function group`;
          for (const i of g.inputs) {
            if (!isCount(i) || i >= (p.inputCount as number) || seen.has(i)) return `${at}: bad function group inputs`;
            seen.add(i);
          }
        }
        if (seen.size !== p.inputCount) return `${at}: function groups do not cover the inputs`;
        break;
      }
      case 'count-batch':
        if (!isCount(p.count, 1 << 20) || p.count === 0) return `${at}: bad count`;
        if (p.timeoutMs !== undefined && p.timeoutMs !== null && !(typeof p.timeoutMs === 'number' && p.timeoutMs > 0))
          return `${at}: bad timeoutMs`;
        if (p.inputCount !== p.outputCount) return `${at}: a batch has as many outputs as inputs`;
        break;
      case 'time-batch':
        if (!(typeof p.windowMs === 'number' && p.windowMs > 0 && Number.isFinite(p.windowMs))) return `${at}: bad windowMs`;
        if (p.inputCount !== p.outputCount) return `${at}: a batch has as many outputs as inputs`;
        break;
      default:
        return `${at}: unknown point kind ${String(p.kind)}`;
    }
    outputsOf.set(node.name, node.outputCount);
  }
  if (!Array.isArray(value.outputs) || value.outputs.length === 0) return 'the graph has no outputs';
  for (const [o, e] of value.outputs.entries()) {
    const bad = endpoint(e, `output ${o}`);
    if (bad) return bad;
  }
  return undefined;
}

/** JSON turns `undefined` fields into absent ones and `align: undefined` into nothing; restore the spec's shape. */
export function asSpec(value: unknown): FlowSpecV1 {
  const spec = value as FlowSpecV1;
  return {
    ...spec,
    nodes: spec.nodes.map((n) => ({
      ...n,
      align: n.align ?? undefined,
      point:
        n.point.kind === 'function'
          ? { ...n.point, groups: n.point.groups.map((g) => ({ name: g.name ?? undefined, inputs: g.inputs })) }
          : n.point,
    })),
  };
}

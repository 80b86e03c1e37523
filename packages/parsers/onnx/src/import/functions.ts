import type { AttrValue, Diagnostic } from '@tsge/metadef';
import { diagnostic } from '@tsge/metadef';
import { int64ToNumber } from '../internal/int64.js';
import type { IFunctionProto, IGraphProto } from '../internal/proto.js';
import { decodeAttribute, decodeAttributes } from './attributes.js';
import { type RawNode, rawNode } from './raw-node.js';
import type { TensorLoader } from './tensor-loader.js';

/** A model-local function, decoded once per parse. */
export interface RawFunction {
  readonly name: string;
  readonly domain: string;
  readonly overload: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  /** Default values of attributes (attribute_proto). */
  readonly defaults: ReadonlyMap<string, AttrValue>;
  readonly nodes: readonly RawNode[];
  readonly opsets: ReadonlyMap<string, number>;
}

const MAX_INLINE_DEPTH = 16;

export function functionKey(domain: string, name: string, overload = ''): string {
  return `${domain || 'ai.onnx'}::${name}::${overload}`;
}

export async function decodeFunctions(
  protos: readonly IFunctionProto[],
  loader: TensorLoader,
  diagnostics: Diagnostic[],
): Promise<Map<string, RawFunction>> {
  const functions = new Map<string, RawFunction>();
  for (const f of protos) {
    const name = f.name ?? '';
    try {
      const defaults = new Map<string, AttrValue>();
      for (const a of f.attributeProto ?? []) {
        const d = await decodeAttribute(a, loader);
        if (d.kind === 'value') defaults.set(a.name ?? '', d.value);
      }
      const nodes: RawNode[] = [];
      for (const [i, p] of (f.node ?? []).entries()) {
        const node = rawNode({
          name: p.name || `${p.opType ?? ''}_${i}`,
          opType: p.opType ?? '',
          domain: p.domain || 'ai.onnx',
          inputs: [...(p.input ?? [])],
          outputs: [...(p.output ?? [])],
        });
        await decodeAttributes(p.attribute ?? [], node, loader);
        nodes.push(node);
      }
      const opsets = new Map<string, number>();
      for (const o of f.opsetImport ?? []) opsets.set(o.domain || 'ai.onnx', int64ToNumber(o.version));
      const fn: RawFunction = {
        name,
        domain: f.domain || 'ai.onnx',
        overload: f.overload ?? '',
        inputs: [...(f.input ?? [])],
        outputs: [...(f.output ?? [])],
        defaults,
        nodes,
        opsets,
      };
      functions.set(functionKey(fn.domain, fn.name, fn.overload), fn);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      diagnostics.push(diagnostic('TSGE-E3003', { reason: `function ${name}: ${reason}` }));
    }
  }
  return functions;
}

/** Renames value names in a subgraph's nodes and outputs (names it defines itself are left alone). */
function renameGraph(graph: IGraphProto, rename: (name: string) => string, depth = 0): IGraphProto {
  if (depth > MAX_INLINE_DEPTH) return graph;
  const local = new Set<string>();
  for (const v of graph.input ?? []) if (v.name) local.add(v.name);
  for (const t of graph.initializer ?? []) if (t.name) local.add(t.name);
  for (const n of graph.node ?? []) for (const o of n.output ?? []) if (o) local.add(o);
  const map = (name: string): string => (!name || local.has(name) ? name : rename(name));
  return {
    ...graph,
    node: (graph.node ?? []).map((n) => ({
      ...n,
      input: (n.input ?? []).map(map),
      attribute: (n.attribute ?? []).map((a) => (a.g ? { ...a, g: renameGraph(a.g, map, depth + 1) } : a)),
    })),
    output: (graph.output ?? []).map((o) => ({ ...o, name: map(o.name ?? '') })),
  };
}

export interface InlineServices {
  fresh(hint: string): string;
  report(node: RawNode, message: string): void;
}

/**
 * Replaces calls of model-local functions by their bodies, recursively: formal inputs/outputs map
 * to the call's values, other names get fresh ones, `ref_attr_name` attributes take the call's
 * value (or the function's default; absent: the attribute is left out).
 */
export function inlineFunctions(
  nodes: readonly RawNode[],
  functions: ReadonlyMap<string, RawFunction>,
  services: InlineServices,
  depth = 0,
): RawNode[] {
  if (functions.size === 0) return [...nodes];
  const out: RawNode[] = [];
  for (const node of nodes) {
    const fn = functions.get(functionKey(node.domain, node.opType, node.overload ?? ''));
    if (!fn) {
      out.push(node);
      continue;
    }
    if (depth >= MAX_INLINE_DEPTH) {
      services.report(node, `function ${fn.name} nests deeper than ${MAX_INLINE_DEPTH} calls (recursive?)`);
      out.push(node);
      continue;
    }
    const names = new Map<string, string>();
    for (const [i, formal] of fn.inputs.entries()) names.set(formal, node.inputs[i] ?? '');
    for (const [i, formal] of fn.outputs.entries()) names.set(formal, node.outputs[i] || services.fresh(`${node.name}/${formal}`));
    const rename = (name: string): string => {
      if (!name) return name;
      let mapped = names.get(name);
      if (mapped === undefined) {
        mapped = services.fresh(`${node.name}/${name}`);
        names.set(name, mapped);
      }
      return mapped;
    };
    const body: RawNode[] = fn.nodes.map((b) => {
      const attrs = new Map(b.attrs);
      const graphs = new Map<string, IGraphProto>();
      for (const [attrName, ref] of b.refs) {
        const value = node.attrs.get(ref) ?? fn.defaults.get(ref);
        if (value) attrs.set(attrName, value);
        const g = node.graphs.get(ref);
        if (g) graphs.set(attrName, g);
      }
      for (const [attrName, g] of b.graphs) graphs.set(attrName, renameGraph(g, rename));
      const opset = fn.opsets.get(b.domain) ?? b.opset;
      return {
        name: services.fresh(`${node.name}/${b.name}`),
        opType: b.opType,
        domain: b.domain,
        inputs: b.inputs.map(rename),
        outputs: b.outputs.map(rename),
        attrs,
        graphs,
        refs: new Map(),
        ...(opset !== undefined ? { opset } : {}),
      };
    });
    out.push(...inlineFunctions(body, functions, services, depth + 1));
  }
  return out;
}

import { readFile } from 'node:fs/promises';
import { readFlowOm, writeFlowOm } from '@tsge/ge';
import { TsgeError } from '@tsge/metadef';
import { graphPointOm } from './engine/graph-processor.js';
import type { FlowFunctionExport } from './function.js';
import { type CompiledFlow, FlowGraph } from './graph.js';
import type { FlowSpecV1, NodeSpec } from './spec.js';
import { asSpec, checkSpec } from './validate-spec.js';

const FORMAT = 'tsge-flow-model';

/** A loaded flow model: run it with startFlow. */
export interface FlowModel extends CompiledFlow {
  readonly name: string;
  /** The `.om` of each graph point, by submodel name. */
  readonly submodels: ReadonlyMap<string, Uint8Array>;
  /** The function modules it will import when started. */
  readonly modules: readonly string[];
}

/**
 * Saves a flow graph as a flow model (`.om`, GE model type 3): the graph in FLOW_MODEL, each graph
 * point compiled to an `.om` in FLOW_SUBMODEL. Functions are stored as module specifier + export
 * name, never as code.
 */
export async function saveFlowModel(source: FlowGraph | CompiledFlow): Promise<Uint8Array> {
  const { spec, inline } = source instanceof FlowGraph ? source.compile() : source;
  const submodels: { name: string; bytes: Uint8Array }[] = [];
  const nodes: NodeSpec[] = [];
  for (const node of spec.nodes) {
    const point = node.point;
    if (point.kind === 'function' && (point.inline || inline.has(node.name)))
      throw TsgeError.of('TSGE-E8116', {
        node: node.name,
        reason: 'its function was given in process; a flow model needs module + export',
      });
    if (point.kind !== 'graph') {
      nodes.push(node);
      continue;
    }
    const bytes = point.model.kind === 'submodel' ? undefined : await graphPointOm(point, { node: node.name });
    if (!bytes) throw TsgeError.of('TSGE-E8102', { node: node.name, reason: 'a submodel reference needs its flow model' });
    submodels.push({ name: node.name, bytes });
    nodes.push({ ...node, point: { ...point, model: { kind: 'submodel', name: node.name } } });
  }
  const stored: FlowSpecV1 = { ...spec, nodes };
  const flowModel = new TextEncoder().encode(JSON.stringify({ format: FORMAT, version: 1, spec: stored }));
  return writeFlowOm({ modelName: spec.name, flowModel, submodels });
}

export interface LoadFlowModelOptions {
  /** When given, a model naming a function module outside this list is rejected (TSGE-E8111). */
  readonly allowModules?: readonly string[];
  readonly fileName?: string;
}

/** Reads and checks a flow model; its functions are imported only when it is started. */
export async function loadFlowModel(source: string | Uint8Array, options: LoadFlowModelOptions = {}): Promise<FlowModel> {
  const file = typeof source === 'string' ? source : (options.fileName ?? '(bytes)');
  const fail = (reason: string): never => {
    throw TsgeError.of('TSGE-E8111', { file, reason }, { file });
  };
  let bytes: Uint8Array;
  if (typeof source === 'string') {
    try {
      bytes = new Uint8Array(await readFile(source));
    } catch (e) {
      throw TsgeError.of('TSGE-E7003', { path: source }, { file: source }, e);
    }
  } else bytes = source;
  const { model, diagnostics } = readFlowOm(bytes, { fileName: file });
  if (!model) throw TsgeError.fromDiagnostics(diagnostics);
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(model.flowModel));
  } catch {
    return fail('FLOW_MODEL is not UTF-8 JSON');
  }
  const doc = document as { format?: unknown; version?: unknown; spec?: unknown };
  if (typeof doc !== 'object' || doc === null || doc.format !== FORMAT) fail('FLOW_MODEL is not a tsge flow model');
  if (doc.version !== 1) fail(`FLOW_MODEL version ${String(doc.version)} is not known (known: 1)`);
  const bad = checkSpec(doc.spec);
  if (bad) fail(bad);
  const spec = asSpec(doc.spec);
  const submodels = new Map(model.submodels.map((s) => [s.name, s.bytes]));
  const modules = new Set<string>();
  for (const node of spec.nodes) {
    const p = node.point;
    if (p.kind === 'graph' && p.model.kind === 'submodel' && !submodels.has(p.model.name))
      fail(`node ${node.name} names submodel ${p.model.name}, which is missing`);
    if (p.kind === 'function') {
      if (options.allowModules && !options.allowModules.includes(p.module))
        fail(`node ${node.name} names module ${p.module}, which is not allowed`);
      modules.add(p.module);
    }
  }
  return { name: spec.name, spec, inline: new Map<string, FlowFunctionExport>(), submodels, modules: [...modules] };
}

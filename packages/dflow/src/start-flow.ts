import { TsgeError } from '@tsge/metadef';
import { createProcessor } from './engine/create-processor.js';
import { FlowEngine, type NodeStats, type SpawnProcessor } from './engine/flow-engine.js';
import type { FlowFunctionExport } from './function.js';
import { type CompiledFlow, FlowGraph } from './graph.js';
import type { FlowMessage, FlowValue } from './message.js';
import {
  type FeedOptions,
  FeedHeaders,
  type FetchOptions,
  type FlowSession,
  type SessionDefaults,
  putFed,
  takeOutputs,
} from './session.js';
import type { FlowModel } from './flow-model.js';
import type { FlowSpecV1 } from './spec.js';

export type Placement = 'in-process' | 'workers' | 'processes';

export interface StartFlowOptions extends SessionDefaults {
  /**
   * Where the points run: 'in-process' (default), 'workers' (each node instance on its own worker
   * thread with its own executor) or 'processes' (each in a child process).
   */
  readonly placement?: Placement;
  /** Messages each graph output holds before the graph waits for `fetch` (default 64). */
  readonly outputDepth?: number;
  /** Submodel bytes of a flow model, for graph points that reference them. */
  readonly submodels?: ReadonlyMap<string, Uint8Array>;
}

/** A spec and what a session needs beside it (in-process functions, submodels). */
export interface Runnable {
  readonly spec: FlowSpecV1;
  readonly inline: ReadonlyMap<string, FlowFunctionExport>;
  readonly submodels: ReadonlyMap<string, Uint8Array>;
}

/** Places the spawning of processors: this thread, workers or child processes. */
export type PlacementFactory = (runnable: Runnable) => { spawn: SpawnProcessor; close(): Promise<void> };

const placements = new Map<Placement, () => Promise<PlacementFactory>>([
  ['in-process', async () => inProcess],
  ['workers', async () => (await import('./deploy/thread-placement.js')).workerPlacement],
  ['processes', async () => (await import('./deploy/thread-placement.js')).processPlacement],
]);

/** Spawns processors on this thread. */
export const inProcess: PlacementFactory = (runnable) => ({
  spawn: (node, instance, later) =>
    createProcessor(node.point, {
      node: node.name,
      instance,
      ...(runnable.inline.has(node.name) ? { inline: runnable.inline.get(node.name) as FlowFunctionExport } : {}),
      submodel: async (name) => {
        const bytes = runnable.submodels.get(name);
        if (!bytes) throw TsgeError.of('TSGE-E8102', { node: node.name, reason: `the flow model has no submodel ${name}` });
        return bytes;
      },
      ...later,
    }),
  close: async () => {},
});

/** Starts a flow graph (or a compiled one, or a loaded flow model) and returns its session. */
export async function startFlow(source: FlowGraph | CompiledFlow | FlowModel, options: StartFlowOptions = {}): Promise<FlowSession> {
  const compiled = source instanceof FlowGraph ? source.compile() : source;
  const placement = options.placement ?? 'in-process';
  const factory = placements.get(placement);
  if (!factory) throw TsgeError.of('TSGE-E8112', { option: 'placement', reason: "expected 'in-process', 'workers' or 'processes'" });
  const outputDepth = options.outputDepth ?? 64;
  if (!Number.isSafeInteger(outputDepth) || outputDepth < 1)
    throw TsgeError.of('TSGE-E8112', { option: 'outputDepth', reason: `expected a positive integer, got ${options.outputDepth}` });
  const submodels: ReadonlyMap<string, Uint8Array> =
    options.submodels ?? (compiled as Partial<FlowModel>).submodels ?? new Map<string, Uint8Array>();
  const runnable: Runnable = { spec: compiled.spec, inline: compiled.inline, submodels };
  if (placement !== 'in-process') {
    const inlineNode = compiled.spec.nodes.find((n) => n.point.kind === 'function' && n.point.inline);
    if (inlineNode)
      throw TsgeError.of('TSGE-E8116', {
        node: inlineNode.name,
        reason: `its function was given in process; ${placement} need module + export`,
      });
  }
  const placed = (await factory())(runnable);
  const engine = new FlowEngine(compiled.spec, outputDepth);
  try {
    await engine.start(placed.spawn);
  } catch (e) {
    await placed.close();
    throw e;
  }
  return createLocalSession(compiled.spec, engine, options, () => placed.close());
}

function createLocalSession(spec: FlowSpecV1, engine: FlowEngine, defaults: SessionDefaults, onClose: () => Promise<void>): FlowSession {
  const headers = new FeedHeaders(spec.inputs);
  let closed = false;
  const feedTimeout = defaults.feedTimeoutMs ?? Number.POSITIVE_INFINITY;
  const fetchTimeout = defaults.fetchTimeoutMs ?? Number.POSITIVE_INFINITY;
  return {
    inputNames: spec.inputs.map((i) => i.name),
    outputCount: spec.outputs.length,
    async feed(inputs: readonly FlowValue[], options: FeedOptions = {}): Promise<number> {
      if (closed) throw TsgeError.of('TSGE-E8107');
      const header = headers.check(inputs, options);
      const whenFull = options.whenFull ?? defaults.whenFull ?? 'wait';
      const timeoutMs = options.timeoutMs ?? feedTimeout;
      if (whenFull === 'reject') {
        const full = engine.inputConsumers.findIndex((qs) => qs.some((q) => q.full));
        if (full >= 0)
          throw TsgeError.of('TSGE-E8104', {
            input: spec.inputs[full]?.name,
            depth: engine.inputConsumers[full]?.find((q) => q.full)?.capacity,
          });
      }
      for (let i = 0; i < inputs.length; i++) {
        const message: FlowMessage = { header, value: inputs[i] as FlowValue };
        await putFed(engine.inputConsumers[i] ?? [], message, (spec.inputs[i] as { name: string }).name, whenFull, timeoutMs);
      }
      return header.transactionId;
    },
    fetch(indexes?: readonly number[], options: FetchOptions = {}): Promise<FlowMessage[]> {
      if (closed) return Promise.reject(TsgeError.of('TSGE-E8107'));
      return takeOutputs(engine.outputQueues, indexes, options.timeoutMs ?? fetchTimeout);
    },
    stats(): Readonly<Record<string, NodeStats>> {
      return engine.stats();
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await engine.close();
      await onClose();
    },
  };
}

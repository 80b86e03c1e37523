import { TsgeError } from '@tsge/metadef';
import type { FlowMessage, MessageHeader } from '../message.js';
import type { AlignSpec, FlowSpecV1, NodeSpec } from '../spec.js';
import { groupsOf } from '../spec.js';
import { Aligner } from './aligner.js';
import { BoundedQueue } from './bounded-queue.js';
import { type NodeStats, StatsRecorder } from './node-stats.js';
import { markShared } from './ownership.js';
import { type Emission, type PointProcessor, derivedHeader } from './processor.js';

/** Starts one instance of a node's point somewhere; `later` receives what its timers produce. */
export type SpawnProcessor = (
  node: NodeSpec,
  instance: number,
  later: { emitLater(emissions: readonly Emission[]): void; failLater(header: MessageHeader, error: unknown): void },
) => Promise<PointProcessor>;

export type { NodeStats } from './node-stats.js';

const DEFAULT_ALIGN: AlignSpec = { timeoutMs: Number.POSITIVE_INFINITY, maxPending: 1024, onMissing: 'error' };

/**
 * Wraps what a point threw as the transaction's error (TSGE-E8108, the original as cause); a point
 * host that died is reported as itself (TSGE-E8115).
 */
export function failure(node: string, header: MessageHeader, error: unknown): TsgeError {
  if (TsgeError.isInstance(error) && error.code === 'TSGE-E8115') return error;
  const reason = error instanceof Error ? error.message : String(error);
  return TsgeError.of('TSGE-E8108', { node, transactionId: header.transactionId, reason }, undefined, error);
}

interface Job {
  readonly group: number;
  readonly inputs: readonly FlowMessage[];
}

/** One running instance: a one-slot job queue in front of its processor keeps its inputs in order. */
class Instance {
  readonly jobs = new BoundedQueue<Job>(1);
  busy = false;
  private idleWaiters: (() => void)[] = [];

  get idle(): boolean {
    return !this.busy && this.jobs.size === 0;
  }
  whenIdle(): Promise<void> {
    if (this.idle) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
  notifyIdle(): void {
    if (!this.idle) return;
    for (const w of this.idleWaiters.splice(0)) w();
  }
}

/**
 * Runs a flow spec: a bounded queue per node input edge, alignment per point input group, a
 * dispatcher spreading aligned sets over the instances, and bounded queues for the graph outputs.
 * Where the processors run (this thread, workers, processes) is the `spawn` function's business.
 */
export class FlowEngine {
  readonly inputConsumers: BoundedQueue<FlowMessage>[][];
  readonly outputQueues: BoundedQueue<FlowMessage>[];
  private readonly recorders = new Map<string, { stats: StatsRecorder; inputs: readonly BoundedQueue<FlowMessage>[] }>();
  private readonly runtimes: NodeRuntime[] = [];
  private closed = false;
  /** Failures of the engine itself (a consumer queue closed, a bug): surfaced by `close`. */
  readonly faults: unknown[] = [];

  constructor(
    readonly spec: FlowSpecV1,
    outputDepth: number,
  ) {
    this.inputConsumers = spec.inputs.map(() => []);
    this.outputQueues = spec.outputs.map(() => new BoundedQueue<FlowMessage>(outputDepth));
  }

  async start(spawn: SpawnProcessor): Promise<void> {
    const consumersOf = new Map<string, BoundedQueue<FlowMessage>[][]>();
    for (const node of this.spec.nodes)
      consumersOf.set(
        node.name,
        Array.from({ length: node.outputCount }, () => []),
      );
    const runtimes = this.spec.nodes.map((node) => {
      const stats = new StatsRecorder();
      const runtime = new NodeRuntime(node, stats, consumersOf.get(node.name) as BoundedQueue<FlowMessage>[][], (e) => this.faults.push(e));
      this.recorders.set(node.name, { stats, inputs: runtime.inputQueues });
      return runtime;
    });
    const wire = (source: FlowSpecV1['outputs'][number], queue: BoundedQueue<FlowMessage>): void => {
      if (source.kind === 'input') (this.inputConsumers[source.index] as BoundedQueue<FlowMessage>[]).push(queue);
      else {
        const outputs = consumersOf.get(source.node);
        const list = outputs?.[source.output];
        if (!list)
          throw TsgeError.of('TSGE-E8101', { graph: this.spec.name, reason: `node ${source.node} has no output ${source.output}` });
        list.push(queue);
      }
    };
    this.spec.nodes.forEach((node, n) => {
      node.inputs.forEach((source, i) => {
        wire(source, (runtimes[n] as NodeRuntime).inputQueues[i] as BoundedQueue<FlowMessage>);
      });
    });
    this.spec.outputs.forEach((source, o) => {
      wire(source, this.outputQueues[o] as BoundedQueue<FlowMessage>);
    });
    this.runtimes.push(...runtimes);
    try {
      await Promise.all(runtimes.map((r) => r.start(spawn)));
    } catch (e) {
      await this.close();
      throw e;
    }
  }

  /** Per-node counters, with the depth of each input queue now. */
  stats(): Record<string, NodeStats> {
    return Object.fromEntries([...this.recorders].map(([name, r]) => [name, r.stats.snapshot(r.inputs.map((q) => q.size))]));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const q of this.inputConsumers.flat()) q.close();
    for (const q of this.outputQueues) q.close();
    await Promise.all(this.runtimes.map((r) => r.close()));
  }
}

class NodeRuntime {
  readonly inputQueues: BoundedQueue<FlowMessage>[];
  private readonly groups: readonly { inputs: readonly number[]; aligner: Aligner }[];
  /** For each node input: the (group, slot) pairs it feeds. */
  private readonly routes: { group: number; slot: number }[][];
  private instances: { instance: Instance; processor: PointProcessor }[] = [];
  private next = 0;
  private closing = false;

  constructor(
    private readonly node: NodeSpec,
    private readonly stats: StatsRecorder,
    private readonly consumers: BoundedQueue<FlowMessage>[][],
    private readonly fault: (e: unknown) => void,
  ) {
    this.inputQueues = node.inputs.map(() => new BoundedQueue<FlowMessage>(node.queueDepth));
    this.routes = node.inputs.map(() => []);
    this.groups = groupsOf(node.point).map((g, gi) => {
      g.inputs.forEach((pointInput, slot) => {
        const nodeInput = node.inputMap[pointInput] as number;
        (this.routes[nodeInput] as { group: number; slot: number }[]).push({ group: gi, slot });
      });
      return { inputs: g.inputs, aligner: new Aligner(g.inputs.length, node.align ?? DEFAULT_ALIGN, (partial) => this.missing(partial)) };
    });
  }

  async start(spawn: SpawnProcessor): Promise<void> {
    const later = {
      emitLater: (emissions: readonly Emission[]) => {
        this.forwardAll(emissions).catch(this.fault);
      },
      failLater: (header: MessageHeader, error: unknown) => {
        this.forwardError(header, failure(this.node.name, header, error)).catch(this.fault);
      },
    };
    const processors = await Promise.allSettled(Array.from({ length: this.node.instances }, (_, i) => spawn(this.node, i, later)));
    const failed = processors.find((p) => p.status === 'rejected');
    this.instances = processors.flatMap((p) => (p.status === 'fulfilled' ? [{ instance: new Instance(), processor: p.value }] : []));
    if (failed) throw (failed as PromiseRejectedResult).reason;
    for (const entry of this.instances) void this.runInstance(entry);
    this.inputQueues.forEach((queue, i) => {
      void this.pump(queue, i);
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const q of this.inputQueues) q.close();
    for (const g of this.groups) g.aligner.close();
    for (const { instance } of this.instances) instance.jobs.close();
    await Promise.allSettled(this.instances.map(({ processor }) => processor.close()));
  }

  private async pump(queue: BoundedQueue<FlowMessage>, input: number): Promise<void> {
    for (;;) {
      let message: FlowMessage;
      try {
        message = await queue.take();
      } catch {
        return; // closed
      }
      this.stats.received++;
      const routes = this.routes[input] as { group: number; slot: number }[];
      if (routes.length > 1 && message.value !== undefined) markShared(message.value);
      for (const { group, slot } of routes) {
        const set = (this.groups[group] as { aligner: Aligner }).aligner.add(slot, message);
        if (set) {
          try {
            await this.dispatch(group, set);
          } catch (e) {
            if (!this.closing) this.fault(e);
            return;
          }
        }
      }
    }
  }

  /** Picks an instance (round robin or by key) and waits for room in its job slot. */
  private async dispatch(group: number, inputs: readonly FlowMessage[]): Promise<void> {
    const header = (inputs[0] as FlowMessage).header;
    if (header.eos && this.instances.length > 1) await Promise.all(this.instances.map((e) => e.instance.whenIdle()));
    let index: number;
    const balance = this.node.balance;
    if (balance.kind === 'key') index = keyHash(header, balance.from) % this.instances.length;
    else index = this.next++ % this.instances.length;
    await (this.instances[index] as { instance: Instance }).instance.jobs.put({ group, inputs });
  }

  private async runInstance(entry: { instance: Instance; processor: PointProcessor }): Promise<void> {
    const { instance, processor } = entry;
    for (;;) {
      let job: Job;
      try {
        job = await instance.jobs.take();
      } catch {
        return;
      }
      instance.busy = true;
      const header = (job.inputs[0] as FlowMessage).header;
      try {
        const upstreamError = job.inputs.find((m) => m.error !== undefined);
        this.stats.processed++;
        if (upstreamError) {
          this.stats.failed++;
          await this.forwardError(derivedHeader(header, header.segment, header.segmentEnd), upstreamError.error as TsgeError);
        } else {
          let emissions: readonly Emission[] | undefined;
          const started = performance.now();
          try {
            emissions = await processor.process(job.group, job.inputs);
            this.stats.took(processor.lastProcMs ?? performance.now() - started);
          } catch (e) {
            this.stats.failed++;
            await this.forwardError(derivedHeader(header, header.segment, header.segmentEnd), failure(this.node.name, header, e));
          }
          if (emissions) await this.forwardAll(emissions);
        }
      } catch (e) {
        if (!this.closing) this.fault(e);
        return;
      } finally {
        instance.busy = false;
        instance.notifyIdle();
      }
    }
  }

  private async forwardAll(emissions: readonly Emission[]): Promise<void> {
    for (const emission of emissions) {
      for (let o = 0; o < this.node.outputCount; o++) {
        const value = emission.outputs[this.node.outputMap[o] as number];
        if (value === undefined) continue;
        const message: FlowMessage = { header: emission.header, value };
        const consumers = this.consumers[o] as BoundedQueue<FlowMessage>[];
        this.stats.emitted++;
        if (consumers.length > 1) markShared(value);
        for (const q of consumers) await q.put(message);
      }
    }
  }

  private async forwardError(header: MessageHeader, error: TsgeError): Promise<void> {
    const message: FlowMessage = { header, error };
    this.stats.emitted += this.consumers.length;
    for (const list of this.consumers) for (const q of list) await q.put(message);
  }

  /** An input set that did not complete: drop it, or send its transaction's error downstream. */
  private missing(partial: readonly (FlowMessage | undefined)[]): void {
    const present = partial.find((m) => m !== undefined) as FlowMessage;
    const spec = this.node.align ?? DEFAULT_ALIGN;
    this.stats.dropped++;
    if (spec.onMissing === 'drop') return;
    const error = TsgeError.of('TSGE-E8109', {
      node: this.node.name,
      transactionId: present.header.transactionId,
      timeoutMs: spec.timeoutMs,
    });
    this.forwardError(derivedHeader(present.header, present.header.segment, present.header.segmentEnd), error).catch((e) => {
      if (!this.closing) this.fault(e);
    });
  }
}

/** FNV-1a of the balancing key, so one key always lands on the same instance. */
function keyHash(header: MessageHeader, from: 'transaction' | 'userData'): number {
  let h = 0x811c9dc5;
  const mix = (byte: number): void => {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  };
  if (from === 'userData' && header.userData) for (const b of header.userData) mix(b);
  else {
    let id = header.transactionId;
    for (let i = 0; i < 7; i++) {
      mix(id & 0xff);
      id = Math.floor(id / 256);
    }
  }
  return h >>> 0;
}

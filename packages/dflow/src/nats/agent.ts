import { type ConsumerMessages, type JetStreamClient, type JsMsg, jetstream } from '@nats-io/jetstream';
import { type KvEntry, Kvm } from '@nats-io/kv';
import { Objm } from '@nats-io/obj';
import { connect } from '@nats-io/transport-node';
import { TsgeError } from '@tsge/metadef';
import { Aligner } from '../engine/aligner.js';
import { createProcessor } from '../engine/create-processor.js';
import { failure } from '../engine/flow-engine.js';
import { type Emission, type PointProcessor, derivedHeader } from '../engine/processor.js';
import { type FlowModel, loadFlowModel } from '../flow-model.js';
import type { FlowMessage, MessageHeader } from '../message.js';
import type { AlignSpec, NodeSpec } from '../spec.js';
import { groupsOf } from '../spec.js';
import { decodeMessage } from './codec.js';
import { type DeploymentV1, checkDeployment } from './deployment.js';
import { type Blobs, dropBlob, payloadOf, publishTo } from './publish.js';
import { BLOB_BUCKET, HEADER_ROOM, KV_BUCKET, OBJECT_BUCKET, nodeInputEdge, targetsOf } from './topology.js';

export interface AgentOptions {
  /** NATS server URL(s). */
  readonly servers: string | readonly string[];
  /** This host's name in deployment files. */
  readonly host: string;
  /** When given, flow models naming other function modules are refused. */
  readonly allowModules?: readonly string[];
  readonly signal?: AbortSignal;
  readonly log?: (line: string) => void;
}

/** What the deployer stores in the KV bucket under `deploy.<name>`. */
export interface DeploymentRecord {
  readonly deployment: DeploymentV1;
  /** Object store name of the flow model. */
  readonly object: string;
  readonly revision: string;
}

const DEFAULT_ALIGN: AlignSpec = { timeoutMs: Number.POSITIVE_INFINITY, maxPending: 1024, onMissing: 'error' };

/**
 * A host agent: watches the deployment bucket, runs the nodes placed on its host (each instance
 * with its own processor and executor), reading their input edges from the shared durable
 * consumers and acknowledging a message only after its outputs are published.
 */
export async function runAgent(options: AgentOptions): Promise<void> {
  const log = options.log ?? (() => {});
  const nc = await connect({ servers: typeof options.servers === 'string' ? options.servers : [...options.servers] });
  const js = jetstream(nc);
  const kv = await new Kvm(nc).create(KV_BUCKET);
  const objects = await new Objm(nc).create(OBJECT_BUCKET);
  const blobs: Blobs = {
    store: await new Objm(nc).create(BLOB_BUCKET),
    maxPayload: nc.info ? nc.info.max_payload - HEADER_ROOM : 1_000_000,
  };
  const running = new Map<string, { revision: string; stop(): Promise<void> }>();
  const stopAll = async (): Promise<void> => {
    for (const [name, r] of running) {
      await r.stop();
      await kv.delete(`ready.${name}.${options.host}`).catch(() => {});
    }
    running.clear();
  };
  const watcher = await kv.watch({ key: 'deploy.>' });
  const aborted = new Promise<void>((resolve) => {
    if (options.signal?.aborted) resolve();
    options.signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  void aborted.then(() => watcher.stop());
  // Deployments are handled one after another per name, but a slow stop of one never delays another.
  const chains = new Map<string, Promise<void>>();
  const handle = async (entry: KvEntry): Promise<void> => {
    const name = entry.key.slice('deploy.'.length);
    const current = running.get(name);
    if (entry.operation !== 'PUT') {
      if (current) {
        running.delete(name);
        await current.stop();
        await kv.delete(`ready.${name}.${options.host}`).catch(() => {});
        log(`stopped ${name}`);
      }
      return;
    }
    let record: DeploymentRecord;
    try {
      record = JSON.parse(entry.string()) as DeploymentRecord;
    } catch {
      log(`deployment ${name} is not JSON; ignored`);
      return;
    }
    if (current?.revision === record.revision) return;
    running.delete(name);
    if (current) await current.stop();
    try {
      const blob = await objects.getBlob(record.object);
      if (!blob) throw TsgeError.of('TSGE-E8114', { reason: `object ${record.object} is missing from ${OBJECT_BUCKET}` });
      const model = await loadFlowModel(blob, {
        fileName: record.object,
        ...(options.allowModules ? { allowModules: options.allowModules } : {}),
      });
      const deployment = checkDeployment(record.deployment, model.spec, `deploy.${name}`);
      const runners: NodeRunner[] = [];
      running.set(name, { revision: record.revision, stop: async () => void (await Promise.all(runners.map((r) => r.stop()))) });
      for (const p of deployment.placement.filter((p) => p.host === options.host)) {
        const index = model.spec.nodes.findIndex((n) => n.name === p.node);
        const runner = new NodeRunner(js, blobs, model, deployment, index, p.instances ?? 1, log);
        runners.push(runner);
        await runner.start();
      }
      await kv.put(
        `ready.${name}.${options.host}`,
        JSON.stringify({ revision: record.revision, pid: process.pid, nodes: runners.map((r) => r.node.name) }),
      );
      log(`running ${name}: ${runners.map((r) => r.node.name).join(', ') || '(no nodes here)'}`);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      log(`deployment ${name} failed: ${message}`);
      await kv.put(`ready.${name}.${options.host}`, JSON.stringify({ revision: record.revision, error: message })).catch(() => {});
    }
  };
  try {
    for await (const entry of watcher) {
      const name = entry.key.slice('deploy.'.length);
      const chain = (chains.get(name) ?? Promise.resolve()).then(() => handle(entry));
      chains.set(name, chain);
    }
    await Promise.allSettled(chains.values());
  } finally {
    await stopAll();
    await nc.drain().catch(() => {});
  }
}

/** The instances of one node on this host, reading the node's input edges. */
class NodeRunner {
  readonly node: NodeSpec;
  private processors: PointProcessor[] = [];
  private free: PointProcessor[] = [];
  private waiters: ((p: PointProcessor) => void)[] = [];
  private readonly streams: ConsumerMessages[] = [];
  private readonly raw = new WeakMap<FlowMessage, { m: JsMsg; blob: string | undefined }>();
  private readonly groups: { aligner: Aligner }[];
  private readonly routes: { group: number; slot: number }[][];
  private stopped = false;

  constructor(
    private readonly js: JetStreamClient,
    private readonly blobs: Blobs,
    private readonly model: FlowModel,
    private readonly deployment: DeploymentV1,
    private readonly index: number,
    private readonly instances: number,
    private readonly log: (line: string) => void,
  ) {
    this.node = model.spec.nodes[index] as NodeSpec;
    const node = this.node;
    this.routes = node.inputs.map(() => []);
    this.groups = groupsOf(node.point).map((g, gi) => {
      g.inputs.forEach((pointInput, slot) => {
        (this.routes[node.inputMap[pointInput] as number] as { group: number; slot: number }[]).push({ group: gi, slot });
      });
      return { aligner: new Aligner(g.inputs.length, node.align ?? DEFAULT_ALIGN, (partial) => void this.missing(partial)) };
    });
  }

  async start(): Promise<void> {
    for (let i = 0; i < this.instances; i++) {
      this.processors.push(
        await createProcessor(this.node.point, {
          node: this.node.name,
          instance: i,
          submodel: async (name) => {
            const bytes = this.model.submodels.get(name);
            if (!bytes) throw TsgeError.of('TSGE-E8102', { node: this.node.name, reason: `the flow model has no submodel ${name}` });
            return bytes;
          },
          emitLater: (emissions) => void this.publishAll(emissions).catch((e) => this.log(String(e))),
          failLater: (header, error) =>
            void this.publishError(header, failure(this.node.name, header, error)).catch((e) => this.log(String(e))),
        }),
      );
    }
    this.free = [...this.processors];
    for (let i = 0; i < this.node.inputs.length; i++) {
      const edge = nodeInputEdge(this.deployment.name, this.index, i);
      const consumer = await this.js.consumers.get(edge.stream, edge.durable);
      const messages = await consumer.consume({ max_messages: Math.max(2, this.instances * 2) });
      this.streams.push(messages);
      void this.pump(messages, i);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    // A point busy with a long proc must not hold the stop: its message is simply not acknowledged.
    await Promise.race([Promise.allSettled(this.streams.map((s) => s.close())), new Promise((r) => setTimeout(r, 1000))]);
    for (const g of this.groups) g.aligner.close();
    await Promise.allSettled(this.processors.map((p) => p.close()));
  }

  private acquire(): Promise<PointProcessor> {
    const p = this.free.pop();
    if (p) return Promise.resolve(p);
    return new Promise((resolve) => this.waiters.push(resolve));
  }
  private release(p: PointProcessor): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(p);
    else this.free.push(p);
  }

  private async pump(messages: ConsumerMessages, input: number): Promise<void> {
    for await (const m of messages) {
      if (this.stopped) break;
      let message: FlowMessage;
      let blob: string | undefined;
      try {
        const received = await payloadOf(m, this.blobs);
        blob = received.blob;
        message = decodeMessage(m.headers, received.payload);
      } catch (e) {
        this.log(`${this.node.name}: ${e instanceof Error ? e.message : String(e)}; message terminated`);
        m.term();
        continue;
      }
      this.raw.set(message, { m, blob });
      for (const { group, slot } of this.routes[input] as { group: number; slot: number }[]) {
        const set = (this.groups[group] as { aligner: Aligner }).aligner.add(slot, message);
        if (!set) continue;
        const processor = await this.acquire();
        void this.run(processor, group, set);
      }
    }
  }

  /** Processes one aligned set, publishes what it produced, then acknowledges its inputs. */
  private async run(processor: PointProcessor, group: number, set: readonly FlowMessage[]): Promise<void> {
    const header = (set[0] as FlowMessage).header;
    try {
      const upstream = set.find((m) => m.error !== undefined);
      if (upstream) await this.publishError(derivedHeader(header, header.segment, header.segmentEnd), upstream.error as TsgeError);
      else {
        let emissions: readonly Emission[] | undefined;
        try {
          emissions = await processor.process(group, set);
        } catch (e) {
          await this.publishError(derivedHeader(header, header.segment, header.segmentEnd), failure(this.node.name, header, e));
        }
        if (emissions) await this.publishAll(emissions);
      }
      this.acknowledge(set);
    } catch (e) {
      // not acknowledged: JetStream redelivers after ack_wait
      if (!this.stopped)
        this.log(`${this.node.name}: transaction ${header.transactionId} not finished: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      this.release(processor);
    }
  }

  private async publishAll(emissions: readonly Emission[]): Promise<void> {
    for (const emission of emissions) {
      for (let o = 0; o < this.node.outputCount; o++) {
        const value = emission.outputs[this.node.outputMap[o] as number];
        if (value === undefined) continue;
        await this.publish({ kind: 'node', node: this.node.name, output: o }, { header: emission.header, value });
      }
    }
  }

  private async publishError(header: MessageHeader, error: TsgeError): Promise<void> {
    for (let o = 0; o < this.node.outputCount; o++)
      await this.publish({ kind: 'node', node: this.node.name, output: o }, { header, error });
  }

  private async publish(source: { kind: 'node'; node: string; output: number }, message: FlowMessage): Promise<void> {
    for (const edge of targetsOf(this.model.spec, this.deployment.name, source))
      await publishTo(this.js, edge, message, {
        whenFull: 'wait',
        deadline: Number.POSITIVE_INFINITY,
        stopped: () => this.stopped,
        blobs: this.blobs,
      });
  }

  private async missing(partial: readonly (FlowMessage | undefined)[]): Promise<void> {
    const present = partial.filter((m): m is FlowMessage => m !== undefined);
    const first = present[0] as FlowMessage;
    const spec = this.node.align ?? DEFAULT_ALIGN;
    if (spec.onMissing === 'error') {
      const error = TsgeError.of('TSGE-E8109', {
        node: this.node.name,
        transactionId: first.header.transactionId,
        timeoutMs: spec.timeoutMs,
      });
      await this.publishError(derivedHeader(first.header, first.header.segment, first.header.segmentEnd), error).catch(() => {});
    }
    this.acknowledge(present);
  }

  private acknowledge(messages: readonly FlowMessage[]): void {
    for (const message of messages) {
      const raw = this.raw.get(message);
      if (!raw) continue;
      raw.m.ack();
      dropBlob(raw.blob, this.blobs);
    }
  }
}

import {
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type StoredMsg,
  jetstream,
  jetstreamManager,
} from '@nats-io/jetstream';
import { type KvEntry, Kvm } from '@nats-io/kv';
import { Objm } from '@nats-io/obj';
import { connect } from '@nats-io/transport-node';
import { TsgeError } from '@tsge/metadef';
import { Aligner } from '../engine/aligner.js';
import { createProcessor } from '../engine/create-processor.js';
import { failure } from '../engine/flow-engine.js';
import { StatsRecorder } from '../engine/node-stats.js';
import { type Emission, type PointProcessor, derivedHeader } from '../engine/processor.js';
import { type FlowModel, loadFlowModel } from '../flow-model.js';
import type { FlowMessage, MessageHeader } from '../message.js';
import type { AlignSpec, NodeSpec } from '../spec.js';
import { groupsOf } from '../spec.js';
import { decodeMessage } from './codec.js';
import { type DeploymentV1, checkDeployment } from './deployment.js';
import { type Blobs, dropBlob, payloadOf, publishTo } from './publish.js';
import {
  BLOB_BUCKET,
  type EdgeStream,
  HEADER_ROOM,
  KV_BUCKET,
  OBJECT_BUCKET,
  isKeyedJoin,
  joinedMarks,
  nodeInputEdge,
  statsSubject,
  subjectFor,
  targetsOf,
} from './topology.js';

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
  const jsm = await jetstreamManager(nc);
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
      // Sessions gather per-node counters from every host on the deployment's stats subject.
      const statsSub = nc.subscribe(statsSubject(name), {
        callback: (_err, msg) => {
          const nodes = Object.fromEntries(runners.map((r) => [r.node.name, r.report()]));
          msg.respond(JSON.stringify({ host: options.host, nodes }));
        },
      });
      running.set(name, {
        revision: record.revision,
        stop: async () => {
          statsSub.unsubscribe();
          await Promise.all(runners.map((r) => r.stop()));
        },
      });
      for (const p of deployment.placement.filter((p) => p.host === options.host)) {
        const index = model.spec.nodes.findIndex((n) => n.name === p.node);
        const runner = new NodeRunner({ js, jsm, blobs, model, deployment, log }, index, p.instances ?? 1);
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

/** What a host reports for one node: its counters and its recent proc durations. */
export interface NodeReport {
  readonly received: number;
  readonly processed: number;
  readonly failed: number;
  readonly dropped: number;
  readonly emitted: number;
  readonly samples: readonly number[];
}

interface RunnerContext {
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly blobs: Blobs;
  readonly model: FlowModel;
  readonly deployment: DeploymentV1;
  readonly log: (line: string) => void;
}

/** Where a received message came from, to settle it once its set is done. */
type Origin =
  | { readonly kind: 'delivered'; readonly m: JsMsg; readonly blob: string | undefined }
  | { readonly kind: 'stored'; readonly stream: string; readonly seq: number; readonly blob: string | undefined };

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The instances of one node on this host. A one-input node (or a multi-function point) reads its
 * input edges' shared consumers; a keyed join reads input 0's and fetches the other inputs of the
 * same transaction by subject. Inputs are settled (acknowledged, or deleted from a keyed stream)
 * only after the outputs they produced are published; a batch point holds them until its batch is
 * out, and every held message is kept alive with `working()` so only a dead host's are redelivered.
 */
class NodeRunner {
  readonly node: NodeSpec;
  private processors: PointProcessor[] = [];
  private free: number[] = [];
  private waiters: ((index: number) => void)[] = [];
  private readonly streams: ConsumerMessages[] = [];
  private readonly origins = new WeakMap<FlowMessage, Origin>();
  private readonly groups: { aligner: Aligner }[];
  private readonly routes: { group: number; slot: number }[][];
  /** Per processor: input sets a batch point holds, settled when their batch is published. */
  private readonly held: (readonly FlowMessage[])[][] = [];
  /** Delivered messages not yet settled, kept from redelivery while this host lives. */
  private readonly holding = new Set<JsMsg>();
  private readonly stats = new StatsRecorder();
  private readonly keyed: boolean;
  private readonly batching: boolean;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  /** Keyed join: sweeps partner inputs of settled transactions and, with a finite alignment timeout, those whose input 0 never came. */
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private sweeping = false;
  /** When a sweep first saw a transaction's partner inputs waiting (`<transaction>.<segment>` → ms). */
  private readonly waitingSince = new Map<string, number>();
  /** Transactions (`<transaction>.<segment>`) this host is joining or running now. */
  private readonly joining = new Set<string>();
  private stopped = false;

  constructor(
    private readonly ctx: RunnerContext,
    private readonly index: number,
    private readonly instances: number,
  ) {
    this.node = ctx.model.spec.nodes[index] as NodeSpec;
    const node = this.node;
    this.keyed = isKeyedJoin(node);
    this.batching = node.point.kind === 'count-batch' || node.point.kind === 'time-batch';
    this.routes = node.inputs.map(() => []);
    this.groups = groupsOf(node.point).map((g, gi) => {
      g.inputs.forEach((pointInput, slot) => {
        (this.routes[node.inputMap[pointInput] as number] as { group: number; slot: number }[]).push({ group: gi, slot });
      });
      return { aligner: new Aligner(g.inputs.length, this.alignSpec, (partial) => void this.missing(partial)) };
    });
  }

  private get alignSpec(): AlignSpec {
    return this.node.align ?? DEFAULT_ALIGN;
  }

  report(): NodeReport {
    const { received, processed, failed, dropped, emitted, samples } = this.stats;
    return { received, processed, failed, dropped, emitted, samples };
  }

  async start(): Promise<void> {
    const { model, deployment } = this.ctx;
    for (let i = 0; i < this.instances; i++) {
      this.held.push([]);
      this.processors.push(
        await createProcessor(this.node.point, {
          node: this.node.name,
          instance: i,
          submodel: async (name) => {
            const bytes = model.submodels.get(name);
            if (!bytes) throw TsgeError.of('TSGE-E8102', { node: this.node.name, reason: `the flow model has no submodel ${name}` });
            return bytes;
          },
          emitLater: (emissions) => {
            const sets = (this.held[i] as (readonly FlowMessage[])[]).splice(0);
            void this.publishAll(emissions)
              .then(() => this.settleAll(sets))
              .catch((e) => this.ctx.log(String(e)));
          },
          failLater: (header, error) => {
            const sets = (this.held[i] as (readonly FlowMessage[])[]).splice(0);
            this.stats.failed++;
            void this.publishError(header, failure(this.node.name, header, error))
              .then(() => this.settleAll(sets))
              .catch((e) => this.ctx.log(String(e)));
          },
        }),
      );
    }
    this.free = this.processors.map((_, i) => i);
    const ackWait = deployment.ackWaitMs ?? 30_000;
    this.heartbeat = setInterval(
      () => {
        for (const m of this.holding) m.working();
      },
      Math.max(50, Math.floor(ackWait / 3)),
    );
    this.heartbeat.unref?.();
    const timeoutMs = this.alignSpec.timeoutMs;
    if (this.keyed) {
      this.sweeper = setInterval(
        () => void this.sweep(),
        Number.isFinite(timeoutMs) ? Math.min(1000, Math.max(50, Math.floor(timeoutMs / 2))) : 1000,
      );
      this.sweeper.unref?.();
    }
    const read = this.keyed ? 1 : this.node.inputs.length;
    for (let i = 0; i < read; i++) {
      const edge = this.edge(i);
      const consumer = await this.ctx.js.consumers.get(edge.stream, edge.durable);
      const messages = await consumer.consume({ max_messages: Math.max(2, this.instances * 2) });
      this.streams.push(messages);
      void this.pump(messages, i);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    if (this.sweeper !== undefined) clearInterval(this.sweeper);
    this.holding.clear();
    // A point busy with a long proc must not hold the stop: its message is simply not acknowledged.
    await Promise.race([Promise.allSettled(this.streams.map((s) => s.close())), sleep(1000)]);
    for (const g of this.groups) g.aligner.close();
    await Promise.allSettled(this.processors.map((p) => p.close()));
  }

  private edge(input: number): EdgeStream {
    return nodeInputEdge(this.ctx.model.spec, this.ctx.deployment.name, this.index, input);
  }

  private acquire(): Promise<number> {
    const p = this.free.pop();
    if (p !== undefined) return Promise.resolve(p);
    return new Promise((resolve) => this.waiters.push(resolve));
  }
  private release(p: number): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(p);
    else this.free.push(p);
  }

  private async pump(messages: ConsumerMessages, input: number): Promise<void> {
    for await (const m of messages) {
      if (this.stopped) break;
      let message: FlowMessage;
      try {
        message = await this.decode(m);
      } catch (e) {
        this.ctx.log(`${this.node.name}: ${e instanceof Error ? e.message : String(e)}; message terminated`);
        m.term();
        continue;
      }
      this.holding.add(m);
      if (this.keyed) {
        const processor = await this.acquire();
        void this.join(processor, message);
        continue;
      }
      for (const { group, slot } of this.routes[input] as { group: number; slot: number }[]) {
        const set = (this.groups[group] as { aligner: Aligner }).aligner.add(slot, message);
        if (!set) continue;
        const processor = await this.acquire();
        void this.run(processor, group, set);
      }
    }
  }

  private async decode(m: JsMsg): Promise<FlowMessage> {
    const received = await payloadOf(m, this.ctx.blobs);
    const message = decodeMessage(m.headers, received.payload);
    this.origins.set(message, { kind: 'delivered', m, blob: received.blob });
    this.stats.received++;
    return message;
  }

  /**
   * A keyed join: `first` came on input 0; the other inputs of its transaction are fetched from
   * their keyed streams, waiting up to the alignment timeout (counted from now) for late ones.
   */
  private async join(processor: number, first: FlowMessage): Promise<void> {
    const key = `${first.header.transactionId}.${first.header.segment}`;
    this.joining.add(key);
    try {
      await this.joinInputs(processor, first);
    } finally {
      this.joining.delete(key);
    }
  }

  private async joinInputs(processor: number, first: FlowMessage): Promise<void> {
    const { transactionId, segment } = first.header;
    const byInput: (FlowMessage | undefined)[] = [first];
    const deadline = performance.now() + this.alignSpec.timeoutMs;
    try {
      if (await this.isMarked(`${transactionId}.${segment}`)) {
        // joined before by an instance that died before acknowledging input 0: its output went out
        this.release(processor);
        const origin = this.origins.get(first);
        if (origin?.kind === 'delivered') {
          this.holding.delete(origin.m);
          origin.m.ack();
          dropBlob(origin.blob, this.ctx.blobs);
        }
        await this.clearPartners(`${transactionId}.${segment}`);
        return;
      }
      for (let i = 1; i < this.node.inputs.length; i++) {
        const edge = this.edge(i);
        const subject = subjectFor(edge, transactionId, segment);
        let wait = 1;
        for (;;) {
          if (this.stopped) throw TsgeError.of('TSGE-E8107');
          const stored = await this.storedBySubject(edge.stream, subject);
          if (stored) {
            const view = { headers: stored.header, data: stored.data, seq: stored.seq };
            const received = await payloadOf(view, this.ctx.blobs);
            const message = decodeMessage(stored.header, received.payload);
            this.origins.set(message, { kind: 'stored', stream: edge.stream, seq: stored.seq, blob: received.blob });
            this.stats.received++;
            byInput[i] = message;
            break;
          }
          if (performance.now() >= deadline) break;
          await sleep(Math.min(wait, Math.max(0, deadline - performance.now())));
          wait = Math.min(wait * 2, 25);
        }
      }
    } catch (e) {
      this.release(processor);
      if (!this.stopped)
        this.ctx.log(`${this.node.name}: transaction ${transactionId} not joined: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    if (byInput.some((m) => m === undefined)) {
      this.release(processor);
      await this.missing(byInput).catch((e) => this.ctx.log(String(e)));
      return;
    }
    const group = groupsOf(this.node.point)[0] as { inputs: readonly number[] };
    const set = group.inputs.map((pointInput) => byInput[this.node.inputMap[pointInput] as number] as FlowMessage);
    await this.run(processor, 0, set);
  }

  /** Processes one aligned set, publishes what it produced, then settles its inputs (or holds them in a batch). */
  private async run(index: number, group: number, set: readonly FlowMessage[]): Promise<void> {
    const header = (set[0] as FlowMessage).header;
    const processor = this.processors[index] as PointProcessor;
    const held = this.held[index] as (readonly FlowMessage[])[];
    try {
      const upstream = set.find((m) => m.error !== undefined);
      this.stats.processed++;
      if (upstream) {
        this.stats.failed++;
        await this.publishError(derivedHeader(header, header.segment, header.segmentEnd), upstream.error as TsgeError);
        await this.settle(set);
        return;
      }
      if (this.batching) held.push(set);
      let emissions: readonly Emission[] | undefined;
      const started = performance.now();
      try {
        emissions = await processor.process(group, set);
        this.stats.took(performance.now() - started);
      } catch (e) {
        this.stats.failed++;
        await this.publishError(derivedHeader(header, header.segment, header.segmentEnd), failure(this.node.name, header, e));
      }
      if (emissions) await this.publishAll(emissions);
      if (!this.batching) await this.settle(set);
      // a batch point's sets are settled once a batch (or its failure) went out
      else if (emissions === undefined || emissions.length > 0) await this.settleAll(held.splice(0));
    } catch (e) {
      // not settled: JetStream redelivers after ack_wait once this host stops renewing it
      if (!this.stopped)
        this.ctx.log(`${this.node.name}: transaction ${header.transactionId} not finished: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      this.release(index);
    }
  }

  /**
   * A keyed join's leftovers: partner inputs (1..n) of a transaction whose input 0 is neither
   * queued nor held anywhere (not in input 0's stream) and that waited longer than the alignment
   * timeout are handled like an incomplete set: dropped (deleted, counted in `dropped`) or, with
   * `onMissing: 'error'`, first reported downstream with TSGE-E8109. The error goes out before the
   * delete, so a crash in between repeats it and Nats-Msg-Id drops the repeat; only the sweep whose
   * delete succeeded counts the drop, so several hosts sweeping the same streams count it once.
   * Waiting is timed by this host's clock from the first sweep that saw the inputs.
   */
  private async sweep(): Promise<void> {
    if (this.sweeping || this.stopped) return;
    this.sweeping = true;
    try {
      const now = performance.now();
      const waiting = new Map<string, { edge: EdgeStream; subject: string }[]>();
      for (let i = 1; i < this.node.inputs.length; i++) {
        const edge = this.edge(i);
        const info = await this.ctx.jsm.streams.info(edge.stream, { subjects_filter: `${edge.subject}.>` });
        for (const subject of Object.keys(info.state.subjects ?? {})) {
          const key = subject.slice(edge.subject.length + 1);
          waiting.set(key, [...(waiting.get(key) ?? []), { edge, subject }]);
        }
      }
      for (const key of this.waitingSince.keys()) if (!waiting.has(key)) this.waitingSince.delete(key);
      const marks = joinedMarks(this.ctx.deployment.name, this.index);
      const marked =
        waiting.size === 0
          ? {}
          : ((await this.ctx.jsm.streams.info(marks.stream, { subjects_filter: `${marks.subject}.>` })).state.subjects ?? {});
      const first = this.edge(0);
      for (const [key, partners] of waiting) {
        if (`${marks.subject}.${key}` in marked) {
          // settled, but the instance that joined it died before deleting its partners
          if (!this.joining.has(key)) await this.deletePartners(partners);
          this.waitingSince.delete(key);
          continue;
        }
        if (!Number.isFinite(this.alignSpec.timeoutMs)) continue;
        const since = this.waitingSince.get(key);
        if (since === undefined) this.waitingSince.set(key, now);
        if (since === undefined || now - since < this.alignSpec.timeoutMs || this.joining.has(key)) continue;
        // input 0 still queued or held by an instance: the join that takes it settles the partners
        if (await this.storedBySubject(first.stream, `${first.subject}.${key}`)) continue;
        await this.dropPartners(partners);
        this.waitingSince.delete(key);
      }
    } catch (e) {
      if (!this.stopped) this.ctx.log(`${this.node.name}: sweeping unjoined inputs failed: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      this.sweeping = false;
    }
  }

  /** The last message on `subject` in `stream`, or null when there is none. */
  private storedBySubject(stream: string, subject: string): Promise<StoredMsg | null> {
    return this.ctx.jsm.streams.getMessage(stream, { last_by_subj: subject }).catch((e: unknown) => {
      if (/no message found|10037|404/i.test(String(e))) return null;
      throw e;
    });
  }

  private async isMarked(key: string): Promise<boolean> {
    const marks = joinedMarks(this.ctx.deployment.name, this.index);
    return (await this.storedBySubject(marks.stream, `${marks.subject}.${key}`)) !== null;
  }

  /** Deletes the partner inputs (1..n) of transaction `key` still stored, without counting a drop. */
  private async clearPartners(key: string): Promise<void> {
    const partners: { edge: EdgeStream; subject: string }[] = [];
    for (let i = 1; i < this.node.inputs.length; i++) {
      const edge = this.edge(i);
      partners.push({ edge, subject: `${edge.subject}.${key}` });
    }
    await this.deletePartners(partners);
  }

  private async deletePartners(partners: readonly { edge: EdgeStream; subject: string }[]): Promise<void> {
    for (const p of partners) {
      const stored = await this.storedBySubject(p.edge.stream, p.subject);
      if (stored && (await this.ctx.jsm.streams.deleteMessage(p.edge.stream, stored.seq, false).catch(() => false)))
        dropBlob(stored.header?.get('Tsge-Blob') || undefined, this.ctx.blobs);
    }
  }

  private async dropPartners(partners: readonly { edge: EdgeStream; subject: string }[]): Promise<void> {
    const found: { edge: EdgeStream; stored: StoredMsg }[] = [];
    for (const p of partners) {
      const stored = await this.storedBySubject(p.edge.stream, p.subject);
      if (stored) found.push({ edge: p.edge, stored });
    }
    const head = found[0];
    if (!head) return;
    const blobOf = (s: StoredMsg): string | undefined => s.header?.get('Tsge-Blob') || undefined;
    if (this.alignSpec.onMissing === 'error') {
      const received = await payloadOf({ headers: head.stored.header, data: head.stored.data, seq: head.stored.seq }, this.ctx.blobs);
      const { header } = decodeMessage(head.stored.header, received.payload);
      const error = TsgeError.of('TSGE-E8109', {
        node: this.node.name,
        transactionId: header.transactionId,
        timeoutMs: this.alignSpec.timeoutMs,
      });
      await this.publishError(derivedHeader(header, header.segment, header.segmentEnd), error);
    }
    let deleted = false;
    for (const { edge, stored } of found) {
      if (await this.ctx.jsm.streams.deleteMessage(edge.stream, stored.seq, false).catch(() => false)) {
        deleted = true;
        dropBlob(blobOf(stored), this.ctx.blobs);
      }
    }
    if (deleted) this.stats.dropped++;
  }

  private async publishAll(emissions: readonly Emission[]): Promise<void> {
    for (const emission of emissions) {
      for (let o = 0; o < this.node.outputCount; o++) {
        const value = emission.outputs[this.node.outputMap[o] as number];
        if (value === undefined) continue;
        await this.publish({ kind: 'node', node: this.node.name, output: o }, { header: emission.header, value });
        this.stats.emitted++;
      }
    }
  }

  private async publishError(header: MessageHeader, error: TsgeError): Promise<void> {
    for (let o = 0; o < this.node.outputCount; o++) {
      await this.publish({ kind: 'node', node: this.node.name, output: o }, { header, error });
      this.stats.emitted++;
    }
  }

  private async publish(source: { kind: 'node'; node: string; output: number }, message: FlowMessage): Promise<void> {
    for (const edge of targetsOf(this.ctx.model.spec, this.ctx.deployment.name, source))
      await publishTo(this.ctx.js, edge, message, {
        whenFull: 'wait',
        deadline: Number.POSITIVE_INFINITY,
        stopped: () => this.stopped,
        blobs: this.ctx.blobs,
      });
  }

  /** An input set that did not complete: its transaction's error goes downstream (or it is dropped), and its inputs are settled. */
  private async missing(partial: readonly (FlowMessage | undefined)[]): Promise<void> {
    const present = partial.filter((m): m is FlowMessage => m !== undefined);
    const first = present[0] as FlowMessage;
    const spec = this.alignSpec;
    this.stats.dropped++;
    if (spec.onMissing === 'error') {
      const error = TsgeError.of('TSGE-E8109', {
        node: this.node.name,
        transactionId: first.header.transactionId,
        timeoutMs: spec.timeoutMs,
      });
      await this.publishError(derivedHeader(first.header, first.header.segment, first.header.segmentEnd), error).catch(() => {});
    }
    await this.settle(present);
  }

  private async settleAll(sets: readonly (readonly FlowMessage[])[]): Promise<void> {
    for (const set of sets) await this.settle(set);
  }

  /**
   * Acknowledges the delivered messages of a set and deletes its stored (keyed) ones. Stored ones
   * go only after the server confirmed the acknowledgement: a redelivered first input always finds
   * the rest of its transaction.
   */
  private async settle(messages: readonly FlowMessage[]): Promise<void> {
    const origins = messages.map((m) => this.origins.get(m)).filter((o): o is Origin => o !== undefined);
    const stored = origins.filter((o) => o.kind === 'stored');
    const header = messages[0]?.header;
    if (this.keyed && stored.length > 0 && header) {
      // the mark goes first: whoever sees input 0 or a partner after a crash here knows it was joined
      const marks = joinedMarks(this.ctx.deployment.name, this.index);
      const marked = await this.ctx.js
        .publish(`${marks.subject}.${header.transactionId}.${header.segment}`, new Uint8Array(0))
        .catch(() => undefined);
      if (!marked) return; // not settled: input 0 is redelivered and joined again (its output is a duplicate, dropped)
    }
    for (const o of origins) {
      if (o.kind !== 'delivered') continue;
      this.holding.delete(o.m);
      if (stored.length > 0) {
        if (!(await o.m.ackAck().catch(() => false))) return;
      } else o.m.ack();
    }
    for (const o of stored) await this.ctx.jsm.streams.deleteMessage(o.stream, o.seq, false).catch(() => false);
    for (const o of origins) dropBlob(o.blob, this.ctx.blobs);
  }
}

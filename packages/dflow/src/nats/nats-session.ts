import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type Consumer, type JsMsg, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { Objm } from '@nats-io/obj';
import { connect } from '@nats-io/transport-node';
import { TsgeError } from '@tsge/metadef';
import { loadFlowModel } from '../flow-model.js';
import type { FlowMessage, FlowValue } from '../message.js';
import { BoundedQueue } from '../engine/bounded-queue.js';
import { type NodeStats, latencyOf } from '../engine/node-stats.js';
import { type FeedOptions, FeedHeaders, type FetchOptions, type FlowSession, type SessionDefaults, takeOutputs } from '../session.js';
import type { DeploymentRecord, NodeReport } from './agent.js';
import { decodeMessage } from './codec.js';
import { type DeploymentV1, checkDeployment } from './deployment.js';
import { type Blobs, dropBlob, payloadOf, publishTo } from './publish.js';
import {
  BLOB_BUCKET,
  HEADER_ROOM,
  KV_BUCKET,
  OBJECT_BUCKET,
  createTopology,
  deleteTopology,
  nodeInputEdge,
  outputEdge,
  statsSubject,
  targetsOf,
} from './topology.js';

export interface DeployFlowOptions extends SessionDefaults {
  readonly servers: string | readonly string[];
  /** A deployment file, or its contents (then `model` gives the flow model's bytes). */
  readonly deployment: string | DeploymentV1;
  readonly model?: Uint8Array;
  /** How long to wait for every host's agent to run its nodes (default 60000). */
  readonly readyTimeoutMs?: number;
}

/** A session on a flow deployed over NATS JetStream; `close` undeploys it. */
export interface NatsFlowSession extends FlowSession {
  readonly deployment: DeploymentV1;
  /**
   * Gathers every host's counters now (summed per node, latency percentiles over the hosts'
   * recent samples) and each input edge's stream depth. `stats()` returns the last gathered
   * counters and starts gathering anew when they are older than a second.
   */
  refreshStats(): Promise<Record<string, NodeStats>>;
}

/** Messages each graph output holds here, pulled ahead of `fetch` and kept from redelivery. */
const OUTPUT_AHEAD = 4;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Deploys a flow model on the host agents a deployment names: ships the `.om` through the object
 * store, creates one stream per edge, announces the deployment in the KV bucket, waits until every
 * host runs its nodes, and returns a session that feeds and fetches through JetStream.
 */
export async function deployFlow(options: DeployFlowOptions): Promise<NatsFlowSession> {
  let raw: unknown;
  let file = '(deployment)';
  let bytes = options.model;
  if (typeof options.deployment === 'string') {
    file = options.deployment;
    try {
      raw = JSON.parse(await readFile(file, 'utf8'));
    } catch (e) {
      throw TsgeError.of('TSGE-E8113', { file, reason: e instanceof SyntaxError ? 'it is not JSON' : 'it cannot be read' }, { file }, e);
    }
  } else raw = options.deployment;
  const shape = checkDeployment(raw, undefined, file);
  if (!bytes) {
    const modelPath = typeof options.deployment === 'string' ? path.resolve(path.dirname(file), shape.model) : shape.model;
    try {
      bytes = new Uint8Array(await readFile(modelPath));
    } catch (e) {
      throw TsgeError.of('TSGE-E7003', { path: modelPath }, { file: modelPath }, e);
    }
  }
  const model = await loadFlowModel(bytes, { fileName: shape.model });
  const deployment = checkDeployment(raw, model.spec, file);
  const { spec } = model;
  const nc = await connect({ servers: typeof options.servers === 'string' ? options.servers : [...options.servers] }).catch(
    (e: unknown) => {
      throw TsgeError.of(
        'TSGE-E8114',
        { reason: `cannot connect to ${String(options.servers)}: ${e instanceof Error ? e.message : String(e)}` },
        undefined,
        e,
      );
    },
  );
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  const kv = await new Kvm(nc).create(KV_BUCKET);
  const objects = await new Objm(nc).create(OBJECT_BUCKET);
  const blobs: Blobs = {
    store: await new Objm(nc).create(BLOB_BUCKET),
    maxPayload: nc.info ? nc.info.max_payload - HEADER_ROOM : 1_000_000,
  };
  const name = deployment.name;
  const hosts = [...new Set(deployment.placement.map((p) => p.host))];
  const revision = `${Date.now()}-${process.pid}`;
  try {
    await kv.delete(`deploy.${name}`).catch(() => {});
    await createTopology(jsm, spec, deployment);
    await objects.putBlob({ name: `${name}.om` }, bytes);
    const record: DeploymentRecord = { deployment, object: `${name}.om`, revision };
    await kv.put(`deploy.${name}`, JSON.stringify(record));
    const deadline = performance.now() + (options.readyTimeoutMs ?? 60_000);
    for (const host of hosts) {
      for (;;) {
        const entry = await kv.get(`ready.${name}.${host}`).catch(() => null);
        const state =
          entry && entry.operation === 'PUT' ? (JSON.parse(entry.string()) as { revision?: string; error?: string }) : undefined;
        if (state?.revision === revision) {
          if (state.error) throw TsgeError.of('TSGE-E8114', { reason: `host ${host} could not run deployment ${name}: ${state.error}` });
          break;
        }
        if (performance.now() > deadline)
          throw TsgeError.of('TSGE-E8114', { reason: `host ${host} did not start deployment ${name} in time (is its agent running?)` });
        await sleep(50);
      }
    }
  } catch (e) {
    await kv.delete(`deploy.${name}`).catch(() => {});
    await nc.close();
    throw e;
  }
  const inputTargets = spec.inputs.map((_, index) => targetsOf(spec, name, { kind: 'input', index }));
  const headers = new FeedHeaders(spec.inputs);
  let closed = false;
  const fetchTimeout = options.fetchTimeoutMs ?? Number.POSITIVE_INFINITY;
  const feedTimeout = options.feedTimeoutMs ?? Number.POSITIVE_INFINITY;

  // Each graph output is pulled into a small local queue, so `fetch` waits exactly its timeout
  // (JetStream pulls expire after at least a second and are simply renewed); what waits here is
  // renewed with working() and acknowledged when fetch hands it out.
  const taken = new WeakMap<FlowMessage, { m: JsMsg; blob: string | undefined }>();
  const holding = new Set<JsMsg>();
  const outputQueues = spec.outputs.map(() => new BoundedQueue<FlowMessage>(OUTPUT_AHEAD));
  const pulls: Promise<void>[] = [];
  const pull = async (consumer: Consumer, queue: BoundedQueue<FlowMessage>): Promise<void> => {
    while (!closed) {
      let m: JsMsg | null;
      try {
        m = await consumer.next({ expires: 5000 });
      } catch {
        if (!closed) await sleep(100);
        continue;
      }
      if (!m) continue;
      holding.add(m);
      let message: FlowMessage;
      let blob: string | undefined;
      try {
        const received = await payloadOf(m, blobs);
        blob = received.blob;
        message = decodeMessage(m.headers, received.payload);
      } catch (e) {
        // a message this session cannot read is handed out as the error it is, with the id it names
        const id = Number(m.headers?.get('Tsge-Txn'));
        const transactionId = Number.isSafeInteger(id) && id >= 0 ? id : 0;
        message = { header: { transactionId, segment: 0, segmentEnd: true, eos: false, fedAt: 0 }, error: e as TsgeError };
      }
      taken.set(message, { m, blob });
      try {
        await queue.put(message);
      } catch {
        return; // closed
      }
    }
  };
  for (let o = 0; o < spec.outputs.length; o++) {
    const edge = outputEdge(name, o);
    const consumer = await js.consumers.get(edge.stream, edge.durable);
    pulls.push(pull(consumer, outputQueues[o] as BoundedQueue<FlowMessage>));
  }
  const heartbeat = setInterval(
    () => {
      for (const m of holding) m.working();
    },
    Math.max(50, Math.floor((deployment.ackWaitMs ?? 30_000) / 3)),
  );
  heartbeat.unref?.();

  let lastStats: Record<string, NodeStats> = {};
  let statsAt = Number.NEGATIVE_INFINITY;
  let gathering: Promise<Record<string, NodeStats>> | undefined;
  const gather = async (): Promise<Record<string, NodeStats>> => {
    const reports = new Map<string, NodeReport[]>();
    const replies = await nc.requestMany(statsSubject(name), '', { strategy: 'count', maxMessages: hosts.length, maxWait: 2000 });
    for await (const reply of replies) {
      let body: { nodes?: Record<string, NodeReport> };
      try {
        body = reply.json();
      } catch {
        continue;
      }
      for (const [node, report] of Object.entries(body.nodes ?? {})) {
        if (!spec.nodes.some((n) => n.name === node)) continue;
        const list = reports.get(node) ?? [];
        list.push(report);
        reports.set(node, list);
      }
    }
    const result: Record<string, NodeStats> = {};
    for (const [n, node] of spec.nodes.entries()) {
      const list = reports.get(node.name) ?? [];
      const sum = (key: 'received' | 'processed' | 'failed' | 'dropped' | 'emitted'): number =>
        list.reduce((total, r) => total + (Number.isFinite(r[key]) ? r[key] : 0), 0);
      const queued: number[] = [];
      for (let i = 0; i < node.inputs.length; i++) {
        const info = await jsm.streams.info(nodeInputEdge(spec, name, n, i).stream).catch(() => undefined);
        queued.push(info?.state.messages ?? 0);
      }
      result[node.name] = {
        received: sum('received'),
        processed: sum('processed'),
        failed: sum('failed'),
        dropped: sum('dropped'),
        emitted: sum('emitted'),
        queued,
        latencyMs: latencyOf(list.flatMap((r) => (Array.isArray(r.samples) ? r.samples.filter(Number.isFinite) : []))),
      };
    }
    lastStats = result;
    statsAt = performance.now();
    return result;
  };
  const refreshStats = (): Promise<Record<string, NodeStats>> => {
    if (closed) return Promise.reject(TsgeError.of('TSGE-E8107'));
    gathering ??= gather().finally(() => {
      gathering = undefined;
    });
    return gathering;
  };

  return {
    deployment,
    inputNames: spec.inputs.map((i) => i.name),
    outputCount: spec.outputs.length,
    async feed(inputs: readonly FlowValue[], feedOptions: FeedOptions = {}): Promise<number> {
      if (closed) throw TsgeError.of('TSGE-E8107');
      const header = headers.check(inputs, feedOptions);
      const whenFull = feedOptions.whenFull ?? options.whenFull ?? 'wait';
      const deadline = performance.now() + (feedOptions.timeoutMs ?? feedTimeout);
      for (let i = 0; i < inputs.length; i++) {
        const message: FlowMessage = { header, value: inputs[i] as FlowValue };
        for (const edge of inputTargets[i] ?? [])
          await publishTo(js, edge, message, {
            whenFull,
            deadline,
            input: spec.inputs[i]?.name ?? String(i),
            ...(deployment.maxMessages !== undefined ? { depth: deployment.maxMessages } : {}),
            stopped: () => closed,
            blobs,
          });
      }
      return header.transactionId;
    },
    async fetch(indexes?: readonly number[], fetchOptions: FetchOptions = {}): Promise<FlowMessage[]> {
      if (closed) throw TsgeError.of('TSGE-E8107');
      const messages = await takeOutputs(outputQueues, indexes, fetchOptions.timeoutMs ?? fetchTimeout);
      for (const message of messages) {
        const origin = taken.get(message);
        if (!origin) continue;
        holding.delete(origin.m);
        origin.m.ack();
        dropBlob(origin.blob, blobs);
      }
      return messages;
    },
    stats(): Readonly<Record<string, NodeStats>> {
      if (!closed && performance.now() - statsAt > 1000) void refreshStats().catch(() => {});
      return lastStats;
    },
    refreshStats,
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      for (const q of outputQueues) q.close();
      await gathering?.catch(() => {});
      await kv.delete(`deploy.${name}`).catch(() => {});
      // give agents a moment to stop reading before the streams go (a dead host never answers)
      const until = performance.now() + 2000;
      let waiting = [...hosts];
      while (waiting.length > 0 && performance.now() < until) {
        const entries = await Promise.all(waiting.map((host) => kv.get(`ready.${name}.${host}`).catch(() => null)));
        waiting = waiting.filter((_, i) => entries[i]?.operation === 'PUT');
        if (waiting.length > 0) await sleep(25);
      }
      await deleteTopology(jsm, spec, name);
      await nc.flush().catch(() => {}); // acknowledgements are out
      await nc.close(); // ends the pulls still waiting
      await Promise.allSettled(pulls);
    },
  };
}

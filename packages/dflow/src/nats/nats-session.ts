import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type Consumer, type JsMsg, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { Objm } from '@nats-io/obj';
import { connect } from '@nats-io/transport-node';
import { TsgeError } from '@tsge/metadef';
import { loadFlowModel } from '../flow-model.js';
import type { FlowMessage, FlowValue } from '../message.js';
import { type FeedOptions, FeedHeaders, type FetchOptions, type FlowSession, type SessionDefaults } from '../session.js';
import type { DeploymentRecord } from './agent.js';
import { decodeMessage } from './codec.js';
import { type DeploymentV1, checkDeployment } from './deployment.js';
import { type Blobs, dropBlob, payloadOf, publishTo } from './publish.js';
import { BLOB_BUCKET, HEADER_ROOM, KV_BUCKET, OBJECT_BUCKET, createTopology, deleteTopology, outputEdge, targetsOf } from './topology.js';

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
}

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
  const outputs: Consumer[] = [];
  for (let o = 0; o < spec.outputs.length; o++) {
    const edge = outputEdge(name, o);
    outputs.push(await js.consumers.get(edge.stream, edge.durable));
  }
  const inputTargets = spec.inputs.map((_, index) => targetsOf(spec, name, { kind: 'input', index }));
  const headers = new FeedHeaders(spec.inputs);
  let closed = false;
  const fetchTimeout = options.fetchTimeoutMs ?? Number.POSITIVE_INFINITY;
  const feedTimeout = options.feedTimeoutMs ?? Number.POSITIVE_INFINITY;

  const next = async (consumer: Consumer, deadline: number): Promise<JsMsg | undefined> => {
    for (;;) {
      const left = deadline - performance.now();
      if (left <= 0) return undefined;
      const m = await consumer.next({ expires: Math.max(1000, Math.min(left, 5000)) }).catch(() => null);
      if (m) return m;
      if (closed) return undefined;
    }
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
      const wanted = indexes ?? outputs.map((_, i) => i);
      for (const i of wanted)
        if (!Number.isSafeInteger(i) || i < 0 || i >= outputs.length)
          throw TsgeError.of('TSGE-E8112', { option: 'indexes', reason: `output ${i} does not exist; the graph has ${outputs.length}` });
      const timeoutMs = fetchOptions.timeoutMs ?? fetchTimeout;
      const deadline = performance.now() + timeoutMs;
      const taken: JsMsg[] = [];
      for (const i of wanted) {
        const m = await next(outputs[i] as Consumer, deadline);
        if (!m) {
          for (const t of taken) t.nak(); // back to the stream for the next fetch
          throw TsgeError.of('TSGE-E8106', { timeoutMs, output: i });
        }
        taken.push(m);
      }
      const received = await Promise.all(taken.map((m) => payloadOf(m, blobs)));
      const messages = taken.map((m, i) => decodeMessage(m.headers, (received[i] as { payload: Uint8Array }).payload));
      taken.forEach((m, i) => {
        m.ack();
        dropBlob(received[i]?.blob, blobs);
      });
      return messages;
    },
    stats: () => ({}),
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await kv.delete(`deploy.${name}`).catch(() => {});
      // give agents a moment to stop reading before the streams go
      for (const host of hosts) {
        const until = performance.now() + 5000;
        while (performance.now() < until) {
          const entry = await kv.get(`ready.${name}.${host}`).catch(() => null);
          if (entry?.operation !== 'PUT') break;
          await sleep(25);
        }
      }
      await deleteTopology(jsm, spec, name);
      await nc.drain();
    },
  };
}

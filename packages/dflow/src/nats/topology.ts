import { AckPolicy, DiscardPolicy, type JetStreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import type { FlowSpecV1 } from '../spec.js';
import type { DeploymentV1 } from './deployment.js';

/** A JetStream stream carrying one edge, with the durable consumer its readers share. */
export interface EdgeStream {
  readonly stream: string;
  readonly subject: string;
  readonly durable: string;
}

export const KV_BUCKET = 'tsge-dflow';
export const OBJECT_BUCKET = 'tsge-dflow-models';
export const BLOB_BUCKET = 'tsge-dflow-values';
/** Room left in a NATS message for headers. */
export const HEADER_ROOM = 16 * 1024;

export const nodeInputEdge = (deployment: string, node: number, input: number): EdgeStream => ({
  stream: `DFLOW_${deployment}_n${node}_i${input}`,
  subject: `dflow.${deployment}.n${node}.i${input}`,
  durable: `n${node}_i${input}`,
});
export const outputEdge = (deployment: string, output: number): EdgeStream => ({
  stream: `DFLOW_${deployment}_out${output}`,
  subject: `dflow.${deployment}.out${output}`,
  durable: `out${output}`,
});

/** The edges a graph input or a node output publishes to. */
export function targetsOf(
  spec: FlowSpecV1,
  deployment: string,
  source: { kind: 'input'; index: number } | { kind: 'node'; node: string; output: number },
): EdgeStream[] {
  const same = (e: FlowSpecV1['outputs'][number]): boolean =>
    source.kind === 'input'
      ? e.kind === 'input' && e.index === source.index
      : e.kind === 'node' && e.node === source.node && e.output === source.output;
  const targets: EdgeStream[] = [];
  spec.nodes.forEach((node, n) => {
    node.inputs.forEach((e, i) => {
      if (same(e)) targets.push(nodeInputEdge(deployment, n, i));
    });
  });
  spec.outputs.forEach((e, o) => {
    if (same(e)) targets.push(outputEdge(deployment, o));
  });
  return targets;
}

/**
 * One work-queue stream per edge (a message is gone once acknowledged), bounded by max_msgs with
 * discard new (publishers see "full" and wait), de-duplicating on Nats-Msg-Id; one durable pull
 * consumer per stream that every instance of the reading node shares, with explicit acks,
 * ack_wait and max_deliver for redelivery when a host dies.
 */
export async function createTopology(jsm: JetStreamManager, spec: FlowSpecV1, deployment: DeploymentV1): Promise<void> {
  const edges: { edge: EdgeStream; depth: number }[] = [];
  spec.nodes.forEach((node, n) => {
    node.inputs.forEach((_, i) => {
      edges.push({ edge: nodeInputEdge(deployment.name, n, i), depth: deployment.maxMessages ?? node.queueDepth });
    });
  });
  spec.outputs.forEach((_, o) => {
    edges.push({ edge: outputEdge(deployment.name, o), depth: deployment.maxMessages ?? 1024 });
  });
  for (const { edge, depth } of edges) {
    await jsm.streams.delete(edge.stream).catch(() => false);
    await jsm.streams.add({
      name: edge.stream,
      subjects: [edge.subject],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      max_msgs: depth,
      discard: DiscardPolicy.New,
      duplicate_window: nanos(120_000),
    });
    await jsm.consumers.add(edge.stream, {
      durable_name: edge.durable,
      ack_policy: AckPolicy.Explicit,
      ack_wait: nanos(deployment.ackWaitMs ?? 30_000),
      max_deliver: deployment.maxDeliver ?? 20,
      max_ack_pending: Math.max(1000, depth * 2),
    });
  }
}

export async function deleteTopology(jsm: JetStreamManager, spec: FlowSpecV1, deployment: string): Promise<void> {
  const names = [
    ...spec.nodes.flatMap((node, n) => node.inputs.map((_, i) => nodeInputEdge(deployment, n, i).stream)),
    ...spec.outputs.map((_, o) => outputEdge(deployment, o).stream),
  ];
  for (const name of names) await jsm.streams.delete(name).catch(() => false);
}

/** Whether a publish failed because the stream is full (max_msgs with discard new). */
export function isFull(error: unknown): boolean {
  const text = error instanceof Error ? `${error.message} ${String((error as { code?: unknown }).code ?? '')}` : String(error);
  return /maximum messages|10077|exceeded/i.test(text);
}

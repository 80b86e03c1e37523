import { AckPolicy, DiscardPolicy, type JetStreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { type FlowSpecV1, type NodeSpec, groupsOf } from '../spec.js';
import type { DeploymentV1 } from './deployment.js';

/** A JetStream stream carrying one edge, with the durable consumer its readers share. */
export interface EdgeStream {
  readonly stream: string;
  readonly subject: string;
  readonly durable: string;
  /**
   * A keyed edge has no consumer: each message goes to `<subject>.<transaction>.<segment>`, and the
   * instance that took the same transaction's first input fetches it by subject (see `isKeyedJoin`).
   */
  readonly keyed: boolean;
  /**
   * Every input edge of a keyed join (input 0 too) publishes on `<subject>.<transaction>.<segment>`,
   * so whether a transaction's input 0 is still queued or held can be looked up by subject.
   */
  readonly bySubject: boolean;
}

/**
 * A node with several inputs that form one alignment group joins them by key: its instances share
 * the consumer of input 0 and fetch the other inputs of that transaction from their keyed streams,
 * so any number of instances on any hosts can run it. (Multi-function points with several groups
 * keep aligning on one consumer per input, as one instance.)
 */
export function isKeyedJoin(node: NodeSpec): boolean {
  const groups = groupsOf(node.point);
  return node.inputs.length > 1 && groups.length === 1 && (groups[0]?.inputs.length ?? 0) === node.inputs.length;
}

/**
 * The function group of a multi-function point that aligns several inputs, when the node is no
 * keyed join: such a group aligns on one consumer per input, which only one instance can do (two
 * instances would each take some of a transaction's inputs). Groups of one input each need no
 * alignment, so their node runs as any number of instances.
 */
export function groupAligningOnOneInstance(
  node: NodeSpec,
): { readonly name: string | undefined; readonly inputs: readonly number[] } | undefined {
  if (isKeyedJoin(node)) return undefined;
  return groupsOf(node.point).find((g) => g.inputs.length > 1);
}

/** The subject a message of transaction `id`, segment `segment` takes on an edge. */
export const subjectFor = (edge: EdgeStream, id: number, segment: number): string =>
  edge.bySubject ? `${edge.subject}.${id}.${segment}` : edge.subject;

export const KV_BUCKET = 'tsge-dflow';
export const OBJECT_BUCKET = 'tsge-dflow-models';
export const BLOB_BUCKET = 'tsge-dflow-values';
/** Room left in a NATS message for headers. */
export const HEADER_ROOM = 16 * 1024;

export const nodeInputEdge = (spec: FlowSpecV1, deployment: string, node: number, input: number): EdgeStream => ({
  stream: `DFLOW_${deployment}_n${node}_i${input}`,
  subject: `dflow.${deployment}.n${node}.i${input}`,
  durable: `n${node}_i${input}`,
  keyed: input > 0 && isKeyedJoin(spec.nodes[node] as NodeSpec),
  bySubject: isKeyedJoin(spec.nodes[node] as NodeSpec),
});
export const outputEdge = (deployment: string, output: number): EdgeStream => ({
  stream: `DFLOW_${deployment}_out${output}`,
  subject: `dflow.${deployment}.out${output}`,
  durable: `out${output}`,
  keyed: false,
  bySubject: false,
});
/**
 * A keyed join's settled marks: one empty message on `<subject>.<transaction>.<segment>` per joined
 * transaction, written before input 0 is acknowledged. A host killed between that ack and deleting
 * the partner inputs leaves partners whose mark tells every other instance's sweep to delete them;
 * a redelivered input 0 whose mark exists is acknowledged without running the join again.
 */
export const joinedMarks = (deployment: string, node: number): { stream: string; subject: string } => ({
  stream: `DFLOW_${deployment}_n${node}_joined`,
  subject: `dflow.${deployment}.n${node}.joined`,
});
/** The subject agents answer `stats` requests on. */
export const statsSubject = (deployment: string): string => `dflow.${deployment}.stats`;

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
      if (same(e)) targets.push(nodeInputEdge(spec, deployment, n, i));
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
 * ack_wait and max_deliver for redelivery when a host dies. Keyed edges keep limits retention and
 * no consumer: the instance that joined a message deletes it. Graph outputs redeliver without
 * limit, since a fetch that times out gives back what it took.
 */
export async function createTopology(jsm: JetStreamManager, spec: FlowSpecV1, deployment: DeploymentV1): Promise<void> {
  const edges: { edge: EdgeStream; depth: number }[] = [];
  spec.nodes.forEach((node, n) => {
    node.inputs.forEach((_, i) => {
      edges.push({ edge: nodeInputEdge(spec, deployment.name, n, i), depth: deployment.maxMessages ?? node.queueDepth });
    });
  });
  spec.outputs.forEach((_, o) => {
    edges.push({ edge: outputEdge(deployment.name, o), depth: deployment.maxMessages ?? 1024 });
  });
  for (const { edge, depth } of edges) {
    await jsm.streams.delete(edge.stream).catch(() => false);
    await jsm.streams.add({
      name: edge.stream,
      subjects: [edge.bySubject ? `${edge.subject}.>` : edge.subject],
      retention: edge.keyed ? RetentionPolicy.Limits : RetentionPolicy.Workqueue,
      storage: StorageType.File,
      max_msgs: depth,
      discard: DiscardPolicy.New,
      duplicate_window: nanos(120_000),
    });
    if (edge.keyed) continue;
    await jsm.consumers.add(edge.stream, {
      durable_name: edge.durable,
      ack_policy: AckPolicy.Explicit,
      ack_wait: nanos(deployment.ackWaitMs ?? 30_000),
      max_deliver: edge.durable.startsWith('out') ? -1 : (deployment.maxDeliver ?? 20),
      max_ack_pending: Math.max(1000, depth * 2),
    });
  }
  // marks outlive every redelivery of input 0 (ack_wait × max_deliver), so a late one still sees its mark
  const markAge = Math.max(600_000, 2 * (deployment.ackWaitMs ?? 30_000) * (deployment.maxDeliver ?? 20));
  for (const [n, node] of spec.nodes.entries()) {
    if (!isKeyedJoin(node)) continue;
    const marks = joinedMarks(deployment.name, n);
    await jsm.streams.delete(marks.stream).catch(() => false);
    await jsm.streams.add({
      name: marks.stream,
      subjects: [`${marks.subject}.>`],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_msgs_per_subject: 1,
      max_age: nanos(markAge),
      discard: DiscardPolicy.Old,
    });
  }
}

export async function deleteTopology(jsm: JetStreamManager, spec: FlowSpecV1, deployment: string): Promise<void> {
  const names = [
    ...spec.nodes.flatMap((node, n) => node.inputs.map((_, i) => nodeInputEdge(spec, deployment, n, i).stream)),
    ...spec.outputs.map((_, o) => outputEdge(deployment, o).stream),
    ...spec.nodes.flatMap((node, n) => (isKeyedJoin(node) ? [joinedMarks(deployment, n).stream] : [])),
  ];
  for (const name of names) await jsm.streams.delete(name).catch(() => false);
}

/** Whether a publish failed because the stream is full (max_msgs with discard new). */
export function isFull(error: unknown): boolean {
  const text = error instanceof Error ? `${error.message} ${String((error as { code?: unknown }).code ?? '')}` : String(error);
  return /maximum messages|10077|exceeded/i.test(text);
}

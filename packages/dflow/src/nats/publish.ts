import type { JetStreamClient } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/nats-core';
import type { ObjectStore } from '@nats-io/obj';
import { TsgeError } from '@tsge/metadef';
import type { FlowMessage } from '../message.js';
import { encodeMessage } from './codec.js';
import { type EdgeStream, isFull, subjectFor } from './topology.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The Nats-Msg-Id of a message on an edge: a redelivered, re-processed message is dropped as a duplicate. */
export const messageId = ({ header }: FlowMessage): string => `${header.batchId ?? header.transactionId}.${header.segment}`;

/**
 * Publishes one message to an edge. A full stream (max_msgs, discard new) is back-pressure:
 * 'wait' retries until `deadline` (then TSGE-E8105), 'reject' throws TSGE-E8104 at once.
 */
export async function publishTo(
  js: JetStreamClient,
  edge: EdgeStream,
  message: FlowMessage,
  options: {
    whenFull: 'wait' | 'reject';
    deadline: number;
    input?: string;
    depth?: number | string;
    stopped?: () => boolean;
    blobs: Blobs;
  },
): Promise<void> {
  const encoded = encodeMessage(message);
  const { headers } = encoded;
  let payload = encoded.payload;
  if (payload.byteLength > options.blobs.maxPayload) {
    // Claim check: a value larger than the server's max_payload travels through the object store.
    const name = `${edge.stream}.${messageId(message)}`;
    await options.blobs.store.putBlob({ name }, payload);
    headers.set('Tsge-Blob', name);
    payload = new Uint8Array(0);
  }
  let backoff = 2;
  for (;;) {
    try {
      await js.publish(subjectFor(edge, message.header.transactionId, message.header.segment), payload, {
        msgID: messageId(message),
        headers,
      });
      return;
    } catch (e) {
      if (!isFull(e))
        throw TsgeError.of(
          'TSGE-E8114',
          { reason: `publish to ${edge.subject} failed: ${e instanceof Error ? e.message : String(e)}` },
          undefined,
          e,
        );
      if (options.whenFull === 'reject')
        throw TsgeError.of('TSGE-E8104', { input: options.input ?? edge.subject, depth: options.depth ?? '?' });
      if (performance.now() >= options.deadline)
        throw TsgeError.of('TSGE-E8105', { timeoutMs: '(the feed timeout)', input: options.input ?? edge.subject });
      if (options.stopped?.()) throw TsgeError.of('TSGE-E8107');
      await sleep(backoff);
      backoff = Math.min(backoff * 2, 50);
    }
  }
}

/** The object store that carries values too large for one NATS message, and the size limit. */
export interface Blobs {
  readonly store: ObjectStore;
  readonly maxPayload: number;
}

/** A received (or stored) message's payload, fetched from the object store when it travelled there. */
export async function payloadOf(
  m: { readonly headers?: MsgHdrs | undefined; readonly data: Uint8Array; readonly seq: number },
  blobs: Blobs,
): Promise<{ payload: Uint8Array; blob: string | undefined }> {
  const blob = m.headers?.get('Tsge-Blob');
  if (!blob) return { payload: m.data, blob: undefined };
  const payload = await blobs.store.getBlob(blob);
  if (!payload) throw TsgeError.of('TSGE-E8114', { reason: `the value of message ${m.seq} (${blob}) is missing from the object store` });
  return { payload, blob };
}

/** Blobs of acknowledged messages are deleted. */
export function dropBlob(blob: string | undefined, blobs: Blobs): void {
  if (blob) void blobs.store.delete(blob).catch(() => {});
}

import type { JetStreamClient } from '@nats-io/jetstream';
import { TsgeError } from '@tsge/metadef';
import type { FlowMessage } from '../message.js';
import { encodeMessage } from './codec.js';
import { type EdgeStream, isFull } from './topology.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The Nats-Msg-Id of a message on an edge: a redelivered, re-processed message is dropped as a duplicate. */
export const messageId = (message: FlowMessage): string => `${message.header.transactionId}.${message.header.segment}`;

/**
 * Publishes one message to an edge. A full stream (max_msgs, discard new) is back-pressure:
 * 'wait' retries until `deadline` (then TSGE-E8105), 'reject' throws TSGE-E8104 at once.
 */
export async function publishTo(
  js: JetStreamClient,
  edge: EdgeStream,
  message: FlowMessage,
  options: { whenFull: 'wait' | 'reject'; deadline: number; input?: string; depth?: number | string; stopped?: () => boolean },
): Promise<void> {
  const { headers, payload } = encodeMessage(message);
  let backoff = 2;
  for (;;) {
    try {
      await js.publish(edge.subject, payload, { msgID: messageId(message), headers });
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

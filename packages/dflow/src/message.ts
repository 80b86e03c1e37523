import type { HostTensor } from '@tsge/metadef';
import { TsgeError, isHostTensor } from '@tsge/metadef';

/** What a message carries: a tensor, or raw bytes (a Uint8Array) that no model reads. */
export type FlowValue = HostTensor | Uint8Array;

/** GE's MsgInfo, in our terms: who a message belongs to and where it is in its stream. */
export interface MessageHeader {
  /** The transaction (one feed) the message belongs to; inputs are aligned on it. */
  readonly transactionId: number;
  /**
   * The message's index among the messages of its transaction: 0 unless a function emitted several
   * messages for one input (one per text line of a page, say). Alignment keys on (transaction, segment).
   */
  readonly segment: number;
  /** False on every message of a split transaction but the last one emitted. */
  readonly segmentEnd: boolean;
  /** End of stream: no more messages follow on this path. */
  readonly eos: boolean;
  /** Up to MAX_USER_DATA_BYTES the feeder attached; carried unchanged through the graph. */
  readonly userData?: Uint8Array;
  /** Epoch milliseconds (fractional): when the transaction was fed and when the last node finished it. */
  readonly fedAt: number;
  readonly processedAt?: number;
  /**
   * Set on a batch (CountBatch, TimeBatch) and on what derives from it: an id from the
   * transaction.segment of all its members, which de-duplicates it over NATS (with the segment)
   * instead of its first member's transaction id.
   */
  readonly batchId?: string;
}

/** One message on an edge: a value, or the error that replaced it (delivered to `fetch`). */
export interface FlowMessage {
  readonly header: MessageHeader;
  readonly value?: FlowValue;
  /** Set when a node failed on this transaction; downstream nodes forward it without running. */
  readonly error?: TsgeError;
}

export const MAX_USER_DATA_BYTES = 256;

export function isRawBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array;
}

/** Epoch time in fractional milliseconds (comparable across threads and processes on one machine). */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/** The key inputs are aligned on. */
export function alignmentKey(header: MessageHeader): string {
  return header.segment === 0 ? String(header.transactionId) : `${header.transactionId}/${header.segment}`;
}

/** Why `value` is not a FlowValue, or undefined when it is one. */
export function checkFlowValue(value: unknown): string | undefined {
  if (isRawBytes(value)) return undefined;
  if (typeof value !== 'object' || value === null)
    return `expected a tensor ({ type, dims, data }) or a Uint8Array, got ${describe(value)}`;
  const t = value as Partial<HostTensor>;
  if (typeof t.type !== 'string' || !Array.isArray(t.dims) || t.data === undefined)
    return 'expected a tensor ({ type, dims, data }) or a Uint8Array';
  if (!isHostTensor(t as HostTensor)) return 'sequence and optional values cannot travel on a flow edge';
  let count = 1;
  for (const d of t.dims) {
    if (!Number.isSafeInteger(d) || d < 0) return `dims ${JSON.stringify(t.dims)} are not non-negative integers`;
    count *= d;
  }
  const length = (t.data as { length?: unknown }).length;
  if (typeof length !== 'number') return 'tensor data is not an array';
  if (length !== count) return `tensor data has ${length} elements but dims [${t.dims.join(',')}] need ${count}`;
  return undefined;
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

/** The error of a failed message, for messages that come from elsewhere (a worker, NATS). */
export function errorMessage(code: string, text: string): TsgeError {
  return new TsgeError(code, text);
}

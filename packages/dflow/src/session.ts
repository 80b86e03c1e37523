import { TsgeError } from '@tsge/metadef';
import type { BoundedQueue, QueueFailure } from './engine/bounded-queue.js';
import type { NodeStats } from './engine/flow-engine.js';
import type { FlowMessage, FlowValue, MessageHeader } from './message.js';
import { MAX_USER_DATA_BYTES, checkFlowValue, isRawBytes, nowMs } from './message.js';
import type { FlowInputSpec } from './spec.js';

export interface FeedOptions {
  /** Default: one more than the largest id fed so far. */
  readonly transactionId?: number;
  /** At most 256 bytes, carried with every message of the transaction. */
  readonly userData?: Uint8Array;
  /** Marks the last transaction of the stream. */
  readonly eos?: boolean;
  /** How long to wait for room when a queue is full (default: the session's feedTimeoutMs). */
  readonly timeoutMs?: number;
  /** 'wait' (default: the session's) for room, or 'reject' at once with TSGE-E8104. */
  readonly whenFull?: 'wait' | 'reject';
}

export interface FetchOptions {
  /** Default: the session's fetchTimeoutMs. */
  readonly timeoutMs?: number;
}

/** A running flow graph, wherever its points run. */
export interface FlowSession {
  readonly inputNames: readonly string[];
  readonly outputCount: number;
  /**
   * Sends one transaction: one value per graph input. Bad values, a closed session, a full queue
   * (with 'reject') and a timeout give coded errors here. Resolves with the transaction id.
   */
  feed(inputs: readonly FlowValue[], options?: FeedOptions): Promise<number>;
  /**
   * Takes the next message of each listed graph output (default: all). A message whose transaction
   * failed carries `error` (TSGE-E8108 / E8109) with its header's transaction id.
   */
  fetch(indexes?: readonly number[], options?: FetchOptions): Promise<FlowMessage[]>;
  /** Per-node counters. */
  stats(): Readonly<Record<string, NodeStats>>;
  close(): Promise<void>;
}

export interface SessionDefaults {
  readonly feedTimeoutMs?: number;
  readonly fetchTimeoutMs?: number;
  readonly whenFull?: 'wait' | 'reject';
}

/** Checks one fed value against its input's declaration; a reason or undefined. */
export function checkFeedValue(value: unknown, spec: FlowInputSpec): string | undefined {
  const bad = checkFlowValue(value);
  if (bad) return bad;
  const v = value as FlowValue;
  if (spec.dtype === 'bytes') return isRawBytes(v) ? undefined : 'expected raw bytes (a Uint8Array)';
  if (isRawBytes(v)) return spec.dtype !== undefined ? `expected a ${spec.dtype} tensor, got raw bytes` : undefined;
  if (spec.dtype !== undefined && v.type !== spec.dtype) return `dtype ${v.type}, expected ${spec.dtype}`;
  if (spec.shape !== undefined) {
    const ok = v.dims.length === spec.shape.length && spec.shape.every((d, i) => d < 0 || d === v.dims[i]);
    if (!ok) return `shape [${v.dims.join(',')}], expected [${spec.shape.join(',')}]`;
  }
  return undefined;
}

function checkTimeout(option: string, value: number | undefined): void {
  if (value !== undefined && !(typeof value === 'number' && value >= 0))
    throw TsgeError.of('TSGE-E8112', { option, reason: `expected a non-negative number of milliseconds, got ${String(value)}` });
}

/** Builds the header of a fed transaction, checking the feed options. */
export class FeedHeaders {
  private nextId = 0;
  constructor(private readonly inputs: readonly FlowInputSpec[]) {}

  check(inputs: readonly FlowValue[], options: FeedOptions): MessageHeader {
    if (!Array.isArray(inputs))
      throw TsgeError.of('TSGE-E8103', { input: '(all)', reason: `expected an array of ${this.inputs.length} values` });
    if (inputs.length !== this.inputs.length)
      throw TsgeError.of('TSGE-E8103', { input: '(all)', reason: `the graph has ${this.inputs.length} inputs, ${inputs.length} were fed` });
    inputs.forEach((value, i) => {
      const spec = this.inputs[i] as FlowInputSpec;
      const bad = checkFeedValue(value, spec);
      if (bad) throw TsgeError.of('TSGE-E8103', { input: `${i} (${spec.name})`, reason: bad });
    });
    checkTimeout('timeoutMs', options.timeoutMs);
    if (options.whenFull !== undefined && options.whenFull !== 'wait' && options.whenFull !== 'reject')
      throw TsgeError.of('TSGE-E8112', { option: 'whenFull', reason: "expected 'wait' or 'reject'" });
    const id = options.transactionId ?? this.nextId;
    if (!Number.isSafeInteger(id) || id < 0)
      throw TsgeError.of('TSGE-E8112', {
        option: 'transactionId',
        reason: `expected a non-negative integer, got ${String(options.transactionId)}`,
      });
    if (options.userData !== undefined && (!(options.userData instanceof Uint8Array) || options.userData.length > MAX_USER_DATA_BYTES))
      throw TsgeError.of('TSGE-E8112', { option: 'userData', reason: `expected a Uint8Array of at most ${MAX_USER_DATA_BYTES} bytes` });
    this.nextId = Math.max(this.nextId, id + 1);
    return {
      transactionId: id,
      segment: 0,
      segmentEnd: true,
      eos: options.eos === true,
      ...(options.userData !== undefined ? { userData: options.userData } : {}),
      fedAt: nowMs(),
    };
  }
}

/** Puts a message on every queue an input feeds, by the back-pressure policy. */
export async function putFed(
  queues: readonly BoundedQueue<FlowMessage>[],
  message: FlowMessage,
  input: string,
  whenFull: 'wait' | 'reject',
  timeoutMs: number,
): Promise<void> {
  if (queues.some((q) => q.isClosed)) throw TsgeError.of('TSGE-E8107');
  if (whenFull === 'reject') {
    const full = queues.find((q) => q.full);
    if (full) throw TsgeError.of('TSGE-E8104', { input, depth: full.capacity });
    for (const q of queues) q.tryPut(message);
    return;
  }
  for (const q of queues) {
    try {
      await q.put(message, timeoutMs);
    } catch (e) {
      if ((e as QueueFailure) === 'timeout') throw TsgeError.of('TSGE-E8105', { timeoutMs, input });
      throw TsgeError.of('TSGE-E8107');
    }
  }
}

/** Takes one message from each listed output; on a timeout, what was taken goes back. */
export async function takeOutputs(
  queues: readonly BoundedQueue<FlowMessage>[],
  indexes: readonly number[] | undefined,
  timeoutMs: number,
): Promise<FlowMessage[]> {
  const wanted = indexes ?? queues.map((_, i) => i);
  for (const i of wanted)
    if (!Number.isSafeInteger(i) || i < 0 || i >= queues.length)
      throw TsgeError.of('TSGE-E8112', { option: 'indexes', reason: `output ${i} does not exist; the graph has ${queues.length}` });
  const taken: FlowMessage[] = [];
  const deadline = performance.now() + timeoutMs;
  for (const i of wanted) {
    const q = queues[i] as BoundedQueue<FlowMessage>;
    try {
      taken.push(await q.take(Math.max(0, deadline - performance.now())));
    } catch (e) {
      for (let k = taken.length - 1; k >= 0; k--)
        (queues[wanted[k] as number] as BoundedQueue<FlowMessage>).unshift(taken[k] as FlowMessage);
      if ((e as QueueFailure) === 'timeout') throw TsgeError.of('TSGE-E8106', { timeoutMs, output: i });
      throw TsgeError.of('TSGE-E8107');
    }
  }
  return taken;
}

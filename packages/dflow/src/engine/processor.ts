import type { FlowFunctionExport } from '../function.js';
import type { FlowMessage, FlowValue, MessageHeader } from '../message.js';

/** Messages a point sends for one input set: values per point output, with their header. */
export interface Emission {
  readonly outputs: readonly (FlowValue | undefined)[];
  readonly header: MessageHeader;
}

/**
 * One instance of a process point, wherever it runs (this thread, a worker, a child process, a
 * host agent): `process` takes one aligned input set of an alignment group and returns what to send.
 */
export interface PointProcessor {
  process(group: number, inputs: readonly FlowMessage[]): Promise<readonly Emission[]>;
  close(): Promise<void>;
  /**
   * For a point that runs in another thread or process: how long its last `process` took there,
   * so that stats count the point's own time, not the round trip (queueing, wake-up, transfer).
   */
  readonly lastProcMs?: number;
}

export interface ProcessorContext {
  readonly node: string;
  readonly instance: number;
  /** The function object of an in-process function point. */
  readonly inline?: FlowFunctionExport;
  /** The bytes of a flow model's submodel, for graph points whose model is one. */
  readonly submodel?: (name: string) => Promise<Uint8Array>;
  /** Sends emissions a timer produced (time batches, count batches with a timeout). */
  readonly emitLater: (emissions: readonly Emission[]) => void;
  /** Reports a failure a timer met, for the transaction of `header`. */
  readonly failLater: (header: MessageHeader, error: unknown) => void;
}

/** The header of a message a point sends for `input`. */
export function derivedHeader(input: MessageHeader, segment: number, segmentEnd: boolean, eos = input.eos): MessageHeader {
  return {
    transactionId: input.transactionId,
    segment,
    segmentEnd,
    eos,
    ...(input.userData !== undefined ? { userData: input.userData } : {}),
    fedAt: input.fedAt,
    ...(input.batchId !== undefined ? { batchId: input.batchId } : {}),
    processedAt: performance.timeOrigin + performance.now(),
  };
}

import { createHash } from 'node:crypto';
import type { HostTensor } from '@tsge/metadef';
import { TsgeError, allocateStorage } from '@tsge/metadef';
import { type FlowMessage, type FlowValue, isRawBytes } from '../message.js';
import type { PointSpec } from '../spec.js';
import { type Emission, type PointProcessor, type ProcessorContext, derivedHeader } from './processor.js';

type BatchPoint = Extract<PointSpec, { kind: 'count-batch' | 'time-batch' }>;

/** Concatenates tensors along dimension 0 (same dtype and trailing dims). */
export function concatBatch(values: readonly FlowValue[], node: string): HostTensor {
  const fail = (reason: string): never => {
    throw TsgeError.of('TSGE-E8102', { node, reason: `cannot batch: ${reason}` });
  };
  const tensors = values.map((v) => (isRawBytes(v) ? fail('raw bytes have no batch dimension') : v));
  const first = tensors[0] as HostTensor;
  if (first.dims.length === 0) fail('scalars have no batch dimension');
  const tail = first.dims.slice(1);
  let rows = 0;
  for (const t of tensors) {
    if (t.type !== first.type) fail(`dtypes ${first.type} and ${t.type} differ`);
    if (t.dims.length !== first.dims.length || t.dims.slice(1).some((d, i) => d !== tail[i]))
      fail(`shapes [${first.dims.join(',')}] and [${t.dims.join(',')}] differ after dimension 0`);
    rows += t.dims[0] as number;
  }
  const dims = [rows, ...tail];
  const data = allocateStorage(
    first.type,
    dims.reduce((a, b) => a * b, 1),
  );
  let offset = 0;
  for (const t of tensors) {
    if (Array.isArray(data)) for (let i = 0; i < t.data.length; i++) (data as string[])[offset + i] = (t.data as string[])[i] as string;
    else (data as Float32Array).set(t.data as Float32Array, offset);
    offset += t.data.length;
  }
  return { type: first.type, dims, data };
}

/**
 * A batch's de-duplication id, from the transaction.segment of every member (in any order): a batch
 * re-formed with the same members after a crash is dropped as a duplicate, while one composed
 * differently is not mistaken for it (an id of its first member alone would drop the new members).
 */
export function batchId(sets: readonly (readonly FlowMessage[])[]): string {
  const members = sets
    .map((s) => {
      const h = (s[0] as FlowMessage).header;
      return h.batchId ?? `${h.transactionId}.${h.segment}`;
    })
    .sort();
  return `batch.${createHash('sha256').update(members.join(',')).digest('hex').slice(0, 32)}`;
}

/**
 * CountBatch and TimeBatch: aligned input sets wait here until `count` have come (or the first is
 * `timeoutMs` old), or until the time window of the first closes; an EOS message flushes at once.
 */
export function createBatchProcessor(point: BatchPoint, context: ProcessorContext): PointProcessor {
  let pending: (readonly FlowMessage[])[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = (): readonly Emission[] => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const sets = pending;
    pending = [];
    if (sets.length === 0) return [];
    const header = ((sets[0] as readonly FlowMessage[])[0] as FlowMessage).header;
    const eos = sets.some((s) => s.some((m) => m.header.eos));
    const outputs = Array.from({ length: point.inputCount }, (_, i) =>
      concatBatch(
        sets.map((s) => s[i]?.value as FlowValue),
        context.node,
      ),
    );
    return [{ outputs, header: { ...derivedHeader(header, 0, true, eos), batchId: batchId(sets) } }];
  };
  const waitMs = point.kind === 'time-batch' ? point.windowMs : point.timeoutMs;
  return {
    async process(_group, inputs) {
      pending.push(inputs);
      if (inputs.some((m) => m.header.eos)) return flush();
      if (point.kind === 'count-batch' && pending.length >= point.count) return flush();
      if (pending.length === 1 && waitMs !== undefined)
        timer = setTimeout(() => {
          timer = undefined;
          const header = ((pending[0] as readonly FlowMessage[])[0] as FlowMessage).header;
          try {
            context.emitLater(flush());
          } catch (e) {
            // a batch that cannot be concatenated fails the transaction of its first message
            context.failLater(header, e);
          }
        }, waitMs);
      return [];
    },
    async close() {
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}

import { describe, expect, it } from 'vitest';
import { batchId, createBatchProcessor } from '../engine/batch-processor.js';
import type { FlowMessage } from '../message.js';
import { decodeMessage, encodeMessage } from './codec.js';
import { messageId } from './publish.js';

const member = (transactionId: number): FlowMessage[] => [
  { header: { transactionId, segment: 0, segmentEnd: true, eos: false, fedAt: 0 }, value: new Uint8Array(0) },
];

describe('batch de-duplication ids', () => {
  it('derive from every member: the same members in any order match, another composition with the same first member does not', () => {
    const a = batchId([1, 2, 3].map(member));
    expect(batchId([3, 1, 2].map(member))).toBe(a);
    expect(batchId([1, 2, 3, 4].map(member))).not.toBe(a);
    expect(batchId([1, 2].map(member))).not.toBe(a);
    expect(a).toMatch(/^batch\.[0-9a-f]{32}$/);
  });

  it('name a batch on NATS instead of its first transaction, and survive the wire', async () => {
    const processor = createBatchProcessor(
      { kind: 'count-batch', name: 'b', count: 2, timeoutMs: undefined, inputCount: 1, outputCount: 1 },
      { node: 'b', instance: 0, emitLater: () => {}, failLater: () => {} },
    );
    const tensor = (v: number): FlowMessage[] => [
      {
        header: { transactionId: v, segment: 0, segmentEnd: true, eos: false, fedAt: 0 },
        value: { type: 'float32', dims: [1], data: Float32Array.of(v) },
      },
    ];
    expect(await processor.process(0, tensor(7))).toEqual([]);
    const [emission] = await processor.process(0, tensor(8));
    const message: FlowMessage = { header: emission!.header, value: emission!.outputs[0]! };
    expect(message.header.transactionId).toBe(7);
    expect(message.header.batchId).toBe(batchId([7, 8].map(member)));
    expect(messageId(message)).toBe(`${message.header.batchId}.0`);
    expect(messageId(member(7)[0]!)).toBe('7.0');
    const { headers, payload } = encodeMessage(message);
    expect(decodeMessage(headers, payload).header.batchId).toBe(message.header.batchId);
    headers.set('Tsge-Batch', 'x; rm -rf');
    expect(() => decodeMessage(headers, payload)).toThrow(expect.objectContaining({ code: 'TSGE-E8114' }));
  });
});

import { describe, expect, it } from 'vitest';
import { createEventTable } from './event-table.js';
import { type StreamCursor, StreamDeadlockError, runStreamsBlocking, runStreamsHere, runStreamsOnHost } from './run-streams.js';

// stream 0: a, record 0, c(wait 1)   stream 1: wait 0, b, record 1
const streams: StreamCursor<string>[] = [
  {
    stream: { id: 0 },
    tasks: [
      { kind: 'kernel', kernel: 'a' },
      { kind: 'record', event: 0 },
      { kind: 'wait', event: 1 },
      { kind: 'kernel', kernel: 'c' },
    ],
  },
  {
    stream: { id: 1 },
    tasks: [
      { kind: 'wait', event: 0 },
      { kind: 'kernel', kernel: 'b' },
      { kind: 'record', event: 1 },
    ],
  },
];

describe('streams and events', () => {
  it('orders tasks across streams by events (host)', async () => {
    const order: string[] = [];
    await runStreamsOnHost([...streams].reverse(), createEventTable(new Int32Array(3), 1, 2), (k) => order.push(k));
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('orders tasks across streams by events (blocking runner)', () => {
    const order: string[] = [];
    const words = new Int32Array(new SharedArrayBuffer(12));
    runStreamsBlocking(
      streams,
      createEventTable(words, 7, 2),
      (k, s) => order.push(`${k}@${s.id}`),
      () => false,
    );
    expect(order).toEqual(['a@0', 'b@1', 'c@0']);
    // a later generation does not see events of the earlier one
    expect(createEventTable(words, 8, 2).isSet(0)).toBe(false);
  });

  it('orders tasks across streams by events (synchronous runner) and reports a deadlock', () => {
    const order: string[] = [];
    runStreamsHere([...streams].reverse(), createEventTable(new Int32Array(3), 1, 2), (k) => order.push(k));
    expect(order).toEqual(['a', 'b', 'c']);
    const lonely: StreamCursor<string>[] = [
      {
        stream: { id: 0 },
        tasks: [
          { kind: 'kernel', kernel: 'x' },
          { kind: 'wait', event: 0 },
        ],
      },
    ];
    expect(() => runStreamsHere(lonely, createEventTable(new Int32Array(2), 1, 1), () => undefined)).toThrow(StreamDeadlockError);
  });

  it('reports a wait nobody records as a deadlock', async () => {
    const lonely: StreamCursor<string>[] = [{ stream: { id: 0 }, tasks: [{ kind: 'wait', event: 0 }] }];
    await expect(runStreamsOnHost(lonely, createEventTable(new Int32Array(2), 1, 1), () => undefined)).rejects.toThrow(StreamDeadlockError);
  });

  it('rejects an event id outside the table', async () => {
    const bad: StreamCursor<string>[] = [{ stream: { id: 0 }, tasks: [{ kind: 'record', event: 5 }] }];
    await expect(runStreamsOnHost(bad, createEventTable(new Int32Array(2), 1, 1), () => undefined)).rejects.toThrow(RangeError);
  });
});

import type { DeviceFactoryV1, DeviceV1, EventHandle, HostTensor, LaunchV1, StreamHandle, StreamWorkV1 } from '@tsge/metadef';
import { GraphBuilder, TsgeError, createTensorDesc } from '@tsge/metadef';
import { createJsDevice } from '@tsge/runtime';
import { describe, expect, it } from 'vitest';
import { openModel } from '../open-model.js';
import { assembleModel } from '../testing/assemble-model.fixture.js';
import { TEST_DOMAIN } from '../testing/test-kernels.fixture.js';

const kernelModules = [new URL('../testing/test-kernels.fixture.ts', import.meta.url)];

/** y = Relu(x + w) + Relu(x + w) with `add` and `relu` on stream 0 and `sum` on stream 1 (two events). */
function twoStreams() {
  const b = new GraphBuilder('seam');
  const desc = createTensorDesc('float32', [4]);
  const x = b.input('x', 'float32', [4]);
  const w = b.constant('w', new Float32Array([1, -2, 3, -4]), [4]);
  const sum = b.op('Add', [x, w], { name: 'add', domain: TEST_DOMAIN, outputDescs: [desc] });
  const relu = b.op('Relu', [sum], { name: 'relu', domain: TEST_DOMAIN, outputDescs: [desc] });
  b.output(b.op('Add', [relu, sum], { name: 'sum', domain: TEST_DOMAIN, outputDescs: [desc] }), 'y');
  return assembleModel(b.build(), { streamOf: (node) => (node.name === 'sum' ? 1 : 0) });
}

interface Calls {
  streams: StreamHandle[];
  events: EventHandle[];
  runs: { streams: number[]; events: number[] }[];
  launches: { stream: number; node: string }[];
}

/**
 * A third device, for this test only: js-device memory, but streams, events and the run loop of its
 * own (a plain round robin over the streams, events as a set), recording every call it receives.
 */
function spyDevice(calls: Calls): DeviceFactoryV1 {
  return {
    specVersion: 'v1',
    name: 'spy',
    targets: [],
    kernelKinds: ['host'],
    unavailable: () => undefined,
    create(options): DeviceV1 {
      const base = createJsDevice(options);
      let nextStream = 100;
      let nextEvent = 500;
      return {
        ...base,
        name: 'spy',
        createStream() {
          const handle = { id: nextStream++ };
          calls.streams.push(handle);
          return handle;
        },
        createEvent() {
          const handle = { id: nextEvent++ };
          calls.events.push(handle);
          return handle;
        },
        eventWords: (count) => 1 + count,
        runStreamsSync<K>(streams: readonly StreamWorkV1<K>[], events: readonly EventHandle[], launch: LaunchV1<K>) {
          calls.runs.push({ streams: streams.map((s) => s.stream.id), events: events.map((e) => e.id) });
          const recorded = new Set<EventHandle>();
          const positions = streams.map(() => 0);
          for (let moved = true; moved; ) {
            moved = false;
            for (const [s, stream] of streams.entries()) {
              const task = stream.tasks[positions[s] as number];
              if (!task) continue;
              if (task.kind === 'wait' && !recorded.has(events[task.event] as EventHandle)) continue;
              if (task.kind === 'record') recorded.add(events[task.event] as EventHandle);
              if (task.kind === 'kernel') {
                calls.launches.push({ stream: stream.stream.id, node: (task.kernel as { node: string }).node });
                launch(task.kernel, stream.stream);
              }
              positions[s] = (positions[s] as number) + 1;
              moved = true;
            }
          }
          if (streams.some((stream, s) => (positions[s] as number) < stream.tasks.length)) throw new Error('spy: deadlock');
        },
        async runStreams<K>(streams: readonly StreamWorkV1<K>[], events: readonly EventHandle[], launch: LaunchV1<K>) {
          this.runStreamsSync(streams, events, launch);
        },
      };
    },
  };
}

const feeds = { x: { type: 'float32', dims: [4], data: new Float32Array([1, 1, 1, 1]) } };

describe('the device seam', () => {
  it('reaches streams, events and kernel launches only through the device registered by name', async () => {
    const calls: Calls = { streams: [], events: [], runs: [], launches: [] };
    const executor = await openModel(twoStreams(), { kernelModules, devices: [spyDevice(calls)], device: 'spy', warmUp: false }); // no warm-up run: the test counts runs
    expect(executor.device).toBe('spy');
    // one device stream per plan stream and one device event per plan event, made at load
    expect(calls.streams.map((s) => s.id)).toEqual([100, 101]);
    expect(calls.events.length).toBeGreaterThan(0);
    for (const round of [1, 2]) {
      const y = (await executor.run(feeds)).y as HostTensor;
      // x + w = [2, -1, 4, -3]; relu + (x + w) = [4, -1, 8, -3]
      expect(Array.from(y.data as Float32Array)).toEqual([4, -1, 8, -3]);
      expect(calls.runs).toHaveLength(round);
    }
    // every run hands the device its own handles, and every kernel is launched by the device
    for (const run of calls.runs) {
      expect(run.streams).toEqual([100, 101]);
      expect(run.events).toEqual(calls.events.map((e) => e.id));
    }
    expect(calls.launches.slice(0, 3)).toEqual([
      { stream: 100, node: 'add' },
      { stream: 100, node: 'relu' },
      { stream: 101, node: 'sum' },
    ]);
    expect(calls.launches).toHaveLength(6);
    await executor.release();
  });

  it('maps a deadlock the device reports to TSGE-E2006', async () => {
    const calls: Calls = { streams: [], events: [], runs: [], launches: [] };
    const factory = spyDevice(calls);
    const stuck: DeviceFactoryV1 = {
      ...factory,
      create(options) {
        const device = factory.create(options);
        return {
          ...device,
          runStreams: () => Promise.reject(Object.assign(new Error('streams wait on events 0'), { deviceError: 'deadlock', events: [0] })),
        };
      },
    };
    const executor = await openModel(twoStreams(), { kernelModules, devices: [stuck], device: 'spy' });
    const error = await executor.run(feeds).catch((e: unknown) => e);
    expect(TsgeError.isInstance(error) && error.code).toBe('TSGE-E2006');
    await executor.release();
  });
});

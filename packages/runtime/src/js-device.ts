import type { DataType, DeviceFactoryV1, DeviceOptionsV1, DeviceV1, EventHandle, StreamHandle, TypedArray } from '@tsge/metadef';
import { createWorkTracker } from './device/work-tracker.js';
import { createCachingAllocator } from './memory/caching-allocator.js';
import { createHeapMemory } from './memory/heap-memory.js';
import { createRegionAllocator } from './memory/region-allocator.js';
import { viewOf } from './memory/views.js';
import { eventTableWords } from './stream/event-table.js';
import { runStreamsLocal, runStreamsWithFreshEvents } from './stream/run-streams.js';

/**
 * The `js` device: plain ArrayBuffers, no WebAssembly, no SharedArrayBuffer, no workers. Everything
 * runs on the calling thread with the portable kernels ('host' libraries): the device for pages
 * without cross-origin isolation, and for debugging.
 */
export function createJsDevice(options: Pick<DeviceOptionsV1, 'initialBytes' | 'maximumBytes'>): DeviceV1 {
  const heap = createHeapMemory(options);
  // offset 0 stays unused so that 0 never names a live block
  const regions = createRegionAllocator({ base: 64, ensureCapacity: (end) => heap.ensureCapacity(end) });
  const work = createWorkTracker();
  let nextStream = 0;
  let nextEvent = 0;
  let byteView: Uint8Array | undefined;
  const noWasm = (): Promise<never> => Promise.reject(new Error('the js device runs no WebAssembly: compile the model for target js'));
  return {
    specVersion: 'v1',
    specRevision: 3,
    name: 'js',
    kernelKinds: ['host'],
    memory: heap.memory,
    shared: false,
    threadCount: 1,
    allocate: (bytes, alignment) => regions.allocate(bytes, alignment),
    free: (offset) => regions.free(offset),
    scratch: createCachingAllocator(regions),
    view: (dtype: DataType, offset: number, count: number): TypedArray => viewOf(heap.memory.buffer, dtype, offset, count),
    bytes() {
      const buffer = heap.memory.buffer;
      if (byteView?.buffer !== buffer) byteView = new Uint8Array(buffer);
      return byteView;
    },
    createStream: (): StreamHandle => ({ id: nextStream++ }),
    createEvent: (): EventHandle => ({ id: nextEvent++ }),
    eventWords: eventTableWords,
    runStreams: (streams, events, launch) => runStreamsWithFreshEvents(streams, events.length, launch),
    runStreamsSync: (streams, events, launch) => runStreamsLocal(streams, events.length, launch),
    loadKernelModule: noWasm,
    instantiateKernelModule: noWasm,
    track: (promise) => work.track(promise),
    synchronize: () => work.settle(),
    async release() {
      await work.settle();
      byteView = undefined;
    },
  };
}

export const jsDeviceFactory: DeviceFactoryV1 = {
  specVersion: 'v1',
  name: 'js',
  targets: ['js'],
  kernelKinds: ['host'],
  unavailable: () => undefined,
  create: (options) => createJsDevice(options),
};

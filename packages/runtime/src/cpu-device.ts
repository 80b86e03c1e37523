import { availableParallelism } from 'node:os';
import type { DataType, DeviceFactoryV1, DeviceV1, EventHandle, StreamHandle, TypedArray } from '@tsge/metadef';
import { createWorkTracker } from './device/work-tracker.js';
import { type CachingAllocator, createCachingAllocator } from './memory/caching-allocator.js';
import { type DeviceMemory, createDeviceMemory } from './memory/device-memory.js';
import { type RegionAllocator, createRegionAllocator } from './memory/region-allocator.js';
import { viewOf } from './memory/views.js';
import { eventTableWords } from './stream/event-table.js';
import { runStreamsLocal, runStreamsWithFreshEvents } from './stream/run-streams.js';
import { enableEagerWasmTierUp } from './wasm-tier-up.js';
import { type WasmMemory, type WasmModule, atomicsWaitAsync, wasm } from './wasm.js';
import { type WorkerPool, type WorkerPoolOptions, createWorkerPool } from './worker/worker-pool.js';

export interface CpuDeviceOptions {
  /** Threads that run kernels; default `os.availableParallelism()`. 1 runs on the calling thread. */
  readonly threads?: number;
  readonly initialBytes?: number;
  /** Upper bound of device memory (default 4 GiB; shared memory reserves it, so pass what you need). */
  readonly maximumBytes?: number;
  /**
   * Back the memory by a SharedArrayBuffer even on one thread (default: when threads > 1). Views of
   * shared memory survive growth, so tensors allocated at run time never invalidate earlier views.
   */
  readonly shareMemory?: boolean;
  /**
   * Optimise WebAssembly kernels as soon as they compile (default true): sets V8's
   * `--no-wasm-dynamic-tiering` process-wide, once, so early runs are not spent in baseline code.
   */
  readonly eagerWasmTierUp?: boolean;
}

/** The CPU device: `DeviceV1` plus what the executor needs to start workers over the memory. */
export interface CpuDevice extends DeviceV1 {
  readonly memory: WasmMemory;
  /** True when the memory is a SharedArrayBuffer and workers can run kernels. */
  readonly shared: boolean;
  readonly regions: RegionAllocator;
  /** Reuses blocks between runs for tensors whose shapes are known only at run time. */
  readonly dynamic: CachingAllocator;
  /** A byte view of the whole memory (renewed after growth). */
  bytes(): Uint8Array;
  /** Compiles a WebAssembly kernel module once (same bytes → same module). */
  loadKernelModule(bytes: Uint8Array): Promise<WasmModule>;
  /** Starts `threadCount` workers running `handler` over this memory. */
  startWorkers(handler: URL, data: WorkerPoolOptions['data'], prefault?: WorkerPoolOptions['prefault']): WorkerPool;
}

export function defaultThreadCount(): number {
  return Math.max(1, availableParallelism());
}

/** Whether this runtime can share memory between threads. */
export function canShareMemory(): boolean {
  return typeof SharedArrayBuffer === 'function' && atomicsWaitAsync !== undefined;
}

export function createCpuDevice(options: CpuDeviceOptions = {}): CpuDevice {
  if (options.eagerWasmTierUp !== false) enableEagerWasmTierUp();
  const threadCount = Math.max(1, Math.floor(options.threads ?? defaultThreadCount()));
  const shared = (options.shareMemory ?? threadCount > 1) && canShareMemory();
  const deviceMemory: DeviceMemory = createDeviceMemory({
    shared,
    ...(options.initialBytes !== undefined ? { initialBytes: options.initialBytes } : {}),
    ...(options.maximumBytes !== undefined ? { maximumBytes: options.maximumBytes } : {}),
  });
  const memory = deviceMemory.memory;
  // offset 0 stays unused so that 0 never names a live block
  const regions = createRegionAllocator({ base: 64, ensureCapacity: (end) => deviceMemory.ensureCapacity(end) });
  const dynamic = createCachingAllocator(regions);
  const modules = new Map<string, Promise<WasmModule>>();
  const work = createWorkTracker();
  const pools: WorkerPool[] = [];
  let nextStream = 0;
  let nextEvent = 0;
  let released = false;
  let byteView: Uint8Array | undefined;

  const device: CpuDevice = {
    specVersion: 'v1',
    specRevision: 3,
    name: shared ? `cpu-wasm-threads-${threadCount}` : 'cpu-wasm',
    kernelKinds: ['cpu', 'host'],
    memory,
    shared,
    threadCount: shared ? threadCount : 1,
    // workers need shared memory; without it everything runs on the calling thread
    regions,
    dynamic,
    allocate: (bytes, alignment) => regions.allocate(bytes, alignment),
    free: (offset) => regions.free(offset),
    scratch: dynamic,
    view: (dtype: DataType, offset: number, count: number): TypedArray => viewOf(memory.buffer, dtype, offset, count),
    bytes() {
      if (!byteView || byteView.buffer !== memory.buffer || byteView.byteLength !== memory.buffer.byteLength)
        byteView = new Uint8Array(memory.buffer);
      return byteView;
    },
    createStream: (): StreamHandle => ({ id: nextStream++ }),
    createEvent: (): EventHandle => ({ id: nextEvent++ }),
    eventWords: eventTableWords,
    runStreams: (streams, events, launch) => runStreamsWithFreshEvents(streams, events.length, launch),
    runStreamsSync: (streams, events, launch) => runStreamsLocal(streams, events.length, launch),
    loadKernelModule(bytes): Promise<WasmModule> {
      const key = moduleKey(bytes);
      const known = modules.get(key);
      if (known) return known;
      const compiled = wasm.compile(bytes);
      modules.set(key, compiled);
      return compiled;
    },
    async instantiateKernelModule(module) {
      return (await wasm.instantiate(module as WasmModule, { env: { memory } })).exports;
    },
    startWorkers(handler, data, prefault) {
      const pool = createWorkerPool({ size: device.threadCount, handler, memory, data, ...(prefault ? { prefault } : {}) });
      pools.push(pool);
      return pool;
    },
    track: (promise) => work.track(promise),
    synchronize: () => work.settle(),
    async release() {
      if (released) return;
      released = true;
      await work.settle();
      // threads whose loop the owner ended stay as the process's spares (see worker/spare-threads.ts)
      await Promise.all(pools.map((p) => p.release()));
      pools.length = 0;
      modules.clear();
      byteView = undefined;
    },
  };
  return device;
}

/** The CPU device by name: WebAssembly memory, SIMD kernels, a worker pool when memory can be shared. */
export const cpuDeviceFactory: DeviceFactoryV1 = {
  specVersion: 'v1',
  name: 'cpu',
  targets: ['wasm-simd'],
  kernelKinds: ['cpu', 'host'],
  unavailable: () => (typeof wasm?.Memory === 'function' ? undefined : 'this runtime has no WebAssembly'),
  defaultThreads: defaultThreadCount,
  create: (options) => createCpuDevice(options),
};

/** Identity of module bytes: length plus a FNV-1a hash, enough to compile each module once. */
function moduleKey(bytes: Uint8Array): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) hash = Math.imul(hash ^ (bytes[i] as number), 0x01000193);
  return `${bytes.length}:${(hash >>> 0).toString(16)}`;
}

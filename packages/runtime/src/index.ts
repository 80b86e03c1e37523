// @tsge/runtime public API: the CPU device (DeviceV1) and the pieces the executor builds on.
export {
  type CpuDevice,
  type CpuDeviceOptions,
  createCpuDevice,
  cpuDeviceFactory,
  defaultThreadCount,
  canShareMemory,
} from './cpu-device.js';
export { createJsDevice, jsDeviceFactory } from './js-device.js';
export { type HeapMemory, createHeapMemory } from './memory/heap-memory.js';
export {
  type DeviceMemory,
  type DeviceMemoryOptions,
  createDeviceMemory,
  DeviceMemoryError,
  PAGE_BYTES,
  MAX_PAGES,
} from './memory/device-memory.js';
export { type RegionAllocator, createRegionAllocator } from './memory/region-allocator.js';
export { type CachingAllocator, createCachingAllocator } from './memory/caching-allocator.js';
export { viewOf, byteSize, alignUp, elementBytes } from './memory/views.js';
export { type EventTable, createEventTable, eventTableWords } from './stream/event-table.js';
export {
  type StreamTask,
  type StreamCursor,
  type RunStreamsAsyncOptions,
  StreamDeadlockError,
  StreamAbortedError,
  runStreamsBlocking,
  runStreamsHere,
  runStreamsOnHost,
} from './stream/run-streams.js';
export { type WorkerPool, type WorkerPoolOptions, createWorkerPool, prestartWorkers } from './worker/worker-pool.js';
export type { WorkerContext, WorkerHandlerModule } from './worker/protocol.js';
export { workerModuleUrl } from './worker/worker-bundle.js';
export { releaseSpareThreads, spareThreadCount } from './worker/spare-threads.js';
export { type WasmMemory, type WasmModule, type WasmInstance, wasm, atomicsWaitAsync } from './wasm.js';
export { compileEagerly, enableEagerWasmTierUp } from './wasm-tier-up.js';
export type { WasmApi, WaitAsyncResult } from './wasm.js';
// Types this API names, so users can spell every signature by importing @tsge/runtime alone.
export type {
  DATA_TYPES,
  DataType,
  DeviceFactoryV1,
  DeviceOptionsV1,
  DeviceV1,
  DeviceWorkerContextV1,
  DeviceWorkersV1,
  DeviceRangeV1,
  DeviceErrorV1,
  EventTableV1,
  LaunchV1,
  StreamTaskV1,
  StreamWorkV1,
  EventHandle,
  KernelDeviceKind,
  LinearMemory,
  ScratchAllocatorV1,
  StreamHandle,
  TypedArray,
} from '@tsge/metadef';

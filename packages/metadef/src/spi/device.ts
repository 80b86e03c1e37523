import type { DataType, TypedArray } from '../types/dtype.js';

/** The part of `WebAssembly.Memory` the device contract relies on (kept structural so no DOM lib is needed). */
export interface LinearMemory {
  readonly buffer: ArrayBuffer | SharedArrayBuffer;
  grow(deltaPages: number): number;
}

/** An ordered queue of tasks on a device. */
export interface StreamHandle {
  readonly id: number;
}
/** A marker recorded on one stream and waited on by another. */
export interface EventHandle {
  readonly id: number;
}

/**
 * The kind of kernel library a device runs (`KernelLibraryV1.device`): 'host' kernels work on plain
 * arrays and run on every device; 'cpu' kernels need views of WebAssembly memory.
 */
export type KernelDeviceKind = 'host' | 'cpu';

/** A block allocator for tensors whose size is known only at run time (blocks are reused between runs). */
export interface ScratchAllocatorV1 {
  allocate(bytes: number): number;
  free(offset: number): void;
}

/** What a device's worker thread receives: its index, the device memory and the executor's data. */
export interface DeviceWorkerContextV1<D = unknown> {
  readonly index: number;
  readonly memory: LinearMemory;
  readonly data: D;
  /** Sends a message to the owner of the pool. */
  post(message: unknown): void;
  /** The next message the owner sent with `DeviceWorkersV1.post`, without waiting (undefined: none yet). */
  receive(): unknown;
  /** The exported functions of a compiled kernel module instantiated over `memory`. */
  instantiateKernelModule(module: unknown): Promise<Readonly<Record<string, unknown>>>;
}

/**
 * The worker threads a device started over its memory, each running the same handler module
 * (`setup(context)`, then an optional `loop(context)` that may block until terminated).
 */
export interface DeviceWorkersV1 {
  readonly size: number;
  /** Resolves when every worker finished setup; rejects with the first failure. */
  readonly ready: Promise<void>;
  onMessage(listener: (workerIndex: number, message: unknown) => void): void;
  /** Sends a message that worker `workerIndex` takes with `context.receive()` (no wait on its side). */
  post(workerIndex: number, message: unknown): void;
  /** A worker died (uncaught error or exit) after it was ready. */
  onFailure(listener: (workerIndex: number, reason: string) => void): void;
  terminate(): Promise<void>;
}

/** How a device is made: the executor sizes memory from the model before anything is placed. */
export interface DeviceOptionsV1 {
  /** Threads that may run kernels (a device without workers runs on the calling thread whatever it is). */
  readonly threads: number;
  readonly initialBytes: number;
  /** Upper bound of device memory. */
  readonly maximumBytes: number;
  /**
   * The executor will start workers or allocate run-time tensors in device memory (views must
   * survive growth): share the memory between threads when the device can.
   */
  readonly shareMemory: boolean;
}

/**
 * A device: memory, streams, events, kernel modules, worker threads, launch and synchronize. The
 * executor reaches the machine only through this interface. `specRevision` versions additions
 * within v1: revision 2 added `kernelKinds`, `shared`, `bytes`, `scratch`, `startWorkers`,
 * `instantiateKernelModule` and `track`; the executor needs revision 2.
 */
export interface DeviceV1 {
  readonly specVersion: 'v1';
  readonly specRevision: 2;
  readonly name: string;
  /** The kernel-library kinds it runs, fastest first ('cpu' devices run 'host' kernels too). */
  readonly kernelKinds: readonly KernelDeviceKind[];
  /** One linear memory holding weights, the activation arena and workspaces. */
  readonly memory: LinearMemory;
  /** True when `memory` is shared between threads: its views survive growth and workers can use it. */
  readonly shared: boolean;
  /** Threads that run kernels (1: only the calling thread). */
  readonly threadCount: number;
  /** Reserves `bytes` (aligned to `alignment`, default 64) and returns the byte offset. */
  allocate(bytes: number, alignment?: number): number;
  free(offset: number): void;
  /** Memory for run-time-shaped tensors; only used when `shared` (else they live on the JS heap). */
  readonly scratch: ScratchAllocatorV1;
  /** A typed view of `count` elements of `dtype` at `offset` (no copy). */
  view(dtype: DataType, offset: number, count: number): TypedArray;
  /** A byte view of the whole memory (renewed after growth). */
  bytes(): Uint8Array;
  createStream(): StreamHandle;
  createEvent(): EventHandle;
  /** Compiles a WebAssembly kernel module once; rejects on a device without WebAssembly. */
  loadKernelModule(bytes: Uint8Array): Promise<unknown>;
  /** The exported functions of a loaded module instantiated over `memory` (as `env.memory`). */
  instantiateKernelModule(module: unknown): Promise<Readonly<Record<string, unknown>>>;
  /**
   * Starts `threadCount` workers running `handler` (a module URL) over shared `memory`; absent on
   * a device without threads.
   */
  startWorkers?(handler: URL, data: (index: number) => unknown): DeviceWorkersV1;
  /** Registers work so `synchronize()` waits for it. */
  track<T>(work: Promise<T>): Promise<T>;
  synchronize(): Promise<void>;
  release(): Promise<void>;
}

/** A device kind registered by name: what the executor instantiates per loaded model. */
export interface DeviceFactoryV1 {
  readonly specVersion: 'v1';
  readonly name: string;
  /** `.om` targets (the compiler's `target`) whose models this device runs by default. */
  readonly targets: readonly string[];
  /** The kernel-library kinds its devices run (`DeviceV1.kernelKinds`), known before one is made. */
  readonly kernelKinds: readonly KernelDeviceKind[];
  /** Why the device cannot be made in this runtime (e.g. no WebAssembly), or undefined when it can. */
  unavailable(): string | undefined;
  create(options: DeviceOptionsV1): DeviceV1;
}

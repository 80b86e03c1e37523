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
 * A task of a stream: a kernel launch (what `K` is, the executor decides), or the record of / wait
 * on an event, named by its index in the run's events.
 */
export type StreamTaskV1<K> =
  | { readonly kind: 'kernel'; readonly kernel: K }
  | { readonly kind: 'record'; readonly event: number }
  | { readonly kind: 'wait'; readonly event: number };

/** The tasks one stream runs in order. */
export interface StreamWorkV1<K> {
  readonly stream: StreamHandle;
  readonly tasks: readonly StreamTaskV1<K>[];
}

/** Runs one kernel task of `stream`; what it throws ends the run. */
export type LaunchV1<K> = (kernel: K, stream: StreamHandle) => void;

/**
 * The events of one run on a worker, as Int32 words in shared memory that every thread of the run
 * sees; a generation number per run means nothing is reset between runs.
 */
export interface EventTableV1 {
  isSet(event: number): boolean;
  record(event: number): void;
  /** The record counter, for `sleep`. */
  sequence(): number;
  /** Blocks the thread until an event is recorded after `sequence` (workers only). */
  sleep(sequence: number): void;
  /** Wakes every sleeper without recording (to abort a run). */
  wakeAll(): void;
}

/**
 * What a device throws for its own failures, so the executor can map them to catalog codes without
 * importing the device's classes: memory that cannot grow ('out-of-memory', with `needed` and
 * `limit` bytes), streams that wait on events no stream records ('deadlock', with `events`), a run
 * aborted from another thread ('aborted').
 */
export interface DeviceErrorV1 extends Error {
  readonly deviceError: 'out-of-memory' | 'deadlock' | 'aborted';
  readonly needed?: number;
  readonly limit?: number;
  readonly events?: readonly number[];
}

export function isDeviceError(error: unknown, kind?: DeviceErrorV1['deviceError']): error is DeviceErrorV1 {
  if (!(error instanceof Error)) return false;
  const found = (error as Partial<DeviceErrorV1>).deviceError;
  return found !== undefined && (kind === undefined || found === kind);
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

/**
 * What a device's worker thread receives: its index, the device memory, the executor's data, and
 * the device's views, events, run loop and run-time allocator on this thread.
 */
export interface DeviceWorkerContextV1<D = unknown> {
  readonly index: number;
  readonly memory: LinearMemory;
  readonly data: D;
  /** A typed view of `count` elements of `dtype` at `offset` (as `DeviceV1.view`). */
  view(dtype: DataType, offset: number, count: number): TypedArray;
  /** An event table over `eventWords(count)` words of shared memory, for the run `generation` (> 0). */
  eventTable(words: Int32Array, generation: number, count: number): EventTableV1;
  /**
   * Runs `streams` on this worker, blocking while all of them wait on events other workers record;
   * `aborted` is polled after each wake-up (then it throws a DeviceErrorV1 'aborted').
   */
  runStreams<K>(streams: readonly StreamWorkV1<K>[], events: EventTableV1, launch: LaunchV1<K>, aborted: () => boolean): void;
  /**
   * Runs `streams` that all live on this worker, with fresh `events` (tasks name them by index): a
   * wait no stream can satisfy throws a DeviceErrorV1 'deadlock'.
   */
  runLocalStreams<K>(streams: readonly StreamWorkV1<K>[], events: readonly EventHandle[], launch: LaunchV1<K>): void;
  /**
   * A block allocator over `[offset, offset + bytes)`, a range the owner reserved in device memory
   * for this worker (its run-time arena); a request that does not fit throws a DeviceErrorV1
   * 'out-of-memory'. Blocks are reused after `free`.
   */
  arena(offset: number, bytes: number): ScratchAllocatorV1;
  /** Sends a message to the owner of the pool. */
  post(message: unknown): void;
  /** The next message the owner sent with `DeviceWorkersV1.post`, without waiting (undefined: none yet). */
  receive(): unknown;
  /** The exported functions of a compiled kernel module instantiated over `memory`. */
  instantiateKernelModule(module: unknown): Promise<Readonly<Record<string, unknown>>>;
}

/** A byte range of device memory. */
export interface DeviceRangeV1 {
  readonly offset: number;
  readonly bytes: number;
}

/**
 * The worker threads a device started over its memory, each running the same handler module
 * (`setup(context)`, then an optional `loop(context)` that may block until terminated).
 */
export interface DeviceWorkersV1 {
  readonly size: number;
  /**
   * True when every worker thread was already running when the pool was made (kept from an
   * earlier pool): `ready` then waits for setup only, not for threads to boot.
   */
  readonly booted?: boolean;
  /** Resolves when every worker finished setup; rejects with the first failure. */
  readonly ready: Promise<void>;
  onMessage(listener: (workerIndex: number, message: unknown) => void): void;
  /** Sends a message that worker `workerIndex` takes with `context.receive()` (no wait on its side). */
  post(workerIndex: number, message: unknown): void;
  /** A worker died (uncaught error or exit) after it was ready. */
  onFailure(listener: (workerIndex: number, reason: string) => void): void;
  /**
   * Resolves once `words[index]` is not `value` (a worker changed and notified it) or after
   * `timeoutMs`, without blocking the calling thread.
   */
  waitAsync(words: Int32Array, index: number, value: number, timeoutMs: number): Promise<void>;
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
 * `instantiateKernelModule` and `track`; revision 3 added `eventWords`, `runStreams` and `runStreamsSync` (and, for
 * workers, `DeviceWorkersV1.waitAsync` and the context's `view`, `eventTable`, `runStreams`,
 * `runLocalStreams`, `arena`); the executor needs revision 3.
 */
export interface DeviceV1 {
  readonly specVersion: 'v1';
  readonly specRevision: 3;
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
  /** Int32 words an event table of `count` events takes in shared memory (for workers' tables). */
  eventWords(count: number): number;
  /**
   * Runs `streams` on the calling thread: each stream's tasks in order, `launch` for its kernels,
   * records and waits on `events` (made by `createEvent`; tasks name them by index), giving the event
   * loop a turn between slices of work. A wait no stream can satisfy rejects with a DeviceErrorV1
   * 'deadlock'; what `launch` throws rejects as is.
   */
  runStreams<K>(streams: readonly StreamWorkV1<K>[], events: readonly EventHandle[], launch: LaunchV1<K>): Promise<void>;
  /**
   * `runStreams` to the end without giving the event loop a turn (a synchronous run; the caller
   * accepts a blocked event loop). A wait no stream can satisfy throws a DeviceErrorV1 'deadlock'.
   */
  runStreamsSync<K>(streams: readonly StreamWorkV1<K>[], events: readonly EventHandle[], launch: LaunchV1<K>): void;
  /** Compiles a WebAssembly kernel module once; rejects on a device without WebAssembly. */
  loadKernelModule(bytes: Uint8Array): Promise<unknown>;
  /** The exported functions of a loaded module instantiated over `memory` (as `env.memory`). */
  instantiateKernelModule(module: unknown): Promise<Readonly<Record<string, unknown>>>;
  /**
   * Starts `threadCount` workers running `handler` (a module URL) over shared `memory`; absent on
   * a device without threads. `prefault`: a byte range of the memory the workers touch page by page
   * (without changing it) before setup, so the first run does not pay for mapping it.
   */
  startWorkers?(handler: URL, data: (index: number) => unknown, prefault?: DeviceRangeV1): DeviceWorkersV1;
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
  /** Threads a device of this kind runs kernels on when the load does not say (absent: 1). */
  defaultThreads?(): number;
  create(options: DeviceOptionsV1): DeviceV1;
}

import type { DataType, DeviceFactoryV1, Dim, RuntimeValue, TensorStorage } from '@tsge/metadef';
import type { DeviceTensor } from './run/device-tensor.js';

export type ExecutionMode = 'sink' | 'host';

export interface LoadModelOptions {
  /**
   * The device by name: 'cpu' (WebAssembly memory, SIMD kernels, worker threads) or 'js' (plain
   * ArrayBuffers, the portable kernels, the calling thread only), or one of `devices`. Default: the
   * device that runs the `.om`'s target ('wasm-simd': cpu, 'js': js). A model compiled for another
   * device's kernels runs with the reference kernels; an unknown name is TSGE-E6200.
   */
  readonly device?: string;
  /** More devices, looked up by name before the built-in ones. */
  readonly devices?: readonly DeviceFactoryV1[];
  /** Threads that run kernels (default `os.availableParallelism()`); 1 runs on the calling thread. */
  readonly threads?: number;
  /**
   * 'sink' (the default): task lists go to the workers once and a run is one signal; a dynamic-shape
   * model's run goes whole to one worker. 'host': the calling thread dispatches task by task (for
   * debugging; also what runs when there are no workers).
   */
  readonly mode?: ExecutionMode;
  /** Runs that may execute at once, each with its own arena (default 2); more runs queue. */
  readonly maxConcurrentRuns?: number;
  /** Record per-task timings for `profile()`. */
  readonly profile?: boolean;
  /**
   * Extra kernels: URLs or specifiers of modules exporting `kernelLibrary` (a `KernelLibraryV1`; its kernels shadow the defaults of the same name). They are imported
   * on the calling thread and in every worker, so they must be importable by URL.
   */
  readonly kernelModules?: readonly (string | URL)[];
  /**
   * 'lazy': `loadModel` returns without waiting for worker start-up, and runs use the calling
   * thread until the workers are ready. 'eager': wait for them, and fail the load with TSGE-E6009 if
   * one cannot start. Default: lazy when threads must boot; when the process already has them
   * (`initialize({ workers })`, or kept from a released model) the load waits for their setup and
   * the warm-up, which cost about one run, so the first run is a warm one.
   */
  readonly startWorkers?: 'lazy' | 'eager';
  /**
   * Run the model on zero inputs as part of loading (default true: twice, and up to eight times
   * while the runs take under 100 ms together), so the first real run finds the kernel code of every thread optimised and each node's
   * tile plan made. With lazy worker start it runs once the workers are up and `whenReady` waits
   * for it; with 'eager' the load does. By default only a static model is warmed (a model with
   * run-time dims has no shape to warm with, nor one with non-numeric inputs); `{ shapes }` gives
   * the shapes to warm with (a dynamic model, or the `--dynamic_dims` gear those shapes select);
   * inputs with fixed dims may be left out. Shapes that do not fit the model are TSGE-E7002.
   */
  readonly warmUp?: boolean | WarmUpOptions;
  /** Upper bound of device memory in bytes (default: what a static model needs; 1 GiB for dynamic ones). */
  readonly maxMemoryBytes?: number;
  /**
   * Models whose activations (largest arena) are below this many bytes run on the calling thread
   * whatever `threads` says: starting workers and signalling them each run costs more than such
   * kernels take (default 1 MiB; 0 always uses workers).
   */
  readonly smallModelBytes?: number;
  /**
   * Bytes of device memory reserved for each worker that drives dynamic-shape runs: its run-time
   * arena, where tensors shaped at run time go (reused by every run) so the device's SIMD kernels
   * and tiles take them. A run that needs more fails with TSGE-E6210. Default: up to 256 MiB each,
   * within `maxMemoryBytes` (pages are committed only when a run touches them).
   */
  readonly runtimeArenaBytes?: number;
  /**
   * Compile and run the WebAssembly modules stored in the model's KERNELS partition (default
   * false). Such bytes come from the file and run over device memory unchecked, so a model that
   * has them fails to load with TSGE-E6081 unless you trust the file and opt in here.
   */
  readonly allowModelWasm?: boolean;
}

/** `LoadModelOptions.warmUp` with the shapes the warm-up runs use. */
export interface WarmUpOptions {
  /** Dims by input name (every dim of the input, run-time ones filled in). */
  readonly shapes: Readonly<Record<string, readonly number[]>>;
}

/** A tensor in onnxruntime-common's shape (`{ type, dims, data }`), accepted as a feed. */
export interface TensorLike {
  readonly type: string;
  readonly dims: readonly number[];
  readonly data: TensorStorage | ArrayLike<number> | ArrayLike<bigint>;
}

export type Feed = RuntimeValue | TensorLike;

export interface RunOptions {
  /** Overrides the executor's mode for this run ('sink' applies only to static models with workers). */
  readonly mode?: ExecutionMode;
  /**
   * Deadline of this run in milliseconds. A run still going then is stopped with TSGE-E6080 and
   * the model stays usable: on the calling thread the run stops at the next task (or loop
   * iteration); worker threads are terminated and replaced.
   */
  readonly timeoutMs?: number;
  /**
   * Outputs written into device tensors of this executor (`createDeviceTensor`) instead of fresh
   * arrays, as onnxruntime's pre-allocated fetches / IO binding; the result holds the same
   * objects. Each must have the output's dtype and the dims the run produces (TSGE-E4154). A
   * kernel whose output has a run-time shape is handed the tensor itself: bound to the tensor fed
   * as its input, GroupQueryAttention's present_key/value share the past's buffer (onnxruntime-
   * genai's past_present_share_buffer) and a decode step writes only the new rows.
   */
  readonly outputs?: Readonly<Record<string, DeviceTensor>>;
}

/**
 * Options of `Executor.runSync` (host mode on the calling thread; `mode: 'sink'` and bound
 * `outputs` are refused: bound outputs are for the asynchronous `run`).
 */
export type RunSyncOptions = Omit<RunOptions, 'mode' | 'outputs'>;

export interface TensorMetadata {
  readonly name: string;
  readonly dtype: DataType;
  readonly shape: readonly Dim[];
  readonly kind?: 'tensor' | 'sequence' | 'optional';
}

/** One complete event of a Chrome trace (`ph: 'X'`), timestamps in microseconds. */
export interface TraceEvent {
  readonly name: string;
  readonly cat: string;
  readonly ph: 'X';
  readonly ts: number;
  readonly dur: number;
  readonly pid: number;
  readonly tid: number;
  readonly args: {
    readonly opType: string;
    readonly kernel: string;
    readonly stream: number;
    readonly thread: number;
    readonly run: number;
  };
}

/** A metadata event naming a thread in the trace viewer. */
export interface TraceMetadata {
  readonly name: 'thread_name';
  readonly ph: 'M';
  readonly pid: number;
  readonly tid: number;
  readonly args: { readonly name: string };
}

export interface ChromeTrace {
  /** Thread names first, then one complete event per task. */
  readonly traceEvents: readonly (TraceMetadata | TraceEvent)[];
  readonly displayTimeUnit: 'ms';
}

export interface Executor {
  readonly modelName: string;
  /** The name of the device the model runs on (`DeviceV1.name`, e.g. 'cpu-wasm-threads-2' or 'js'). */
  readonly device: string;
  /** The mode runs use by default (host when the model has dynamic parts or no workers). */
  readonly mode: ExecutionMode;
  readonly threads: number;
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  readonly inputMetadata: readonly TensorMetadata[];
  readonly outputMetadata: readonly TensorMetadata[];
  run(feeds: Readonly<Record<string, Feed>>, options?: RunOptions): Promise<Record<string, RuntimeValue>>;
  /**
   * Runs the model to the end on the calling thread and returns its outputs: host mode without
   * workers (kernels that split their work into tiles run every tile here), and the event loop
   * waits until it returns. For synchronous APIs (TensorFlow.js's `predict`); `run` is faster on multi-core
   * machines for large models. It takes a free arena and cannot queue: while all
   * `maxConcurrentRuns` arenas are in use by asynchronous runs it fails with TSGE-E8312.
   */
  runSync(feeds: Readonly<Record<string, Feed>>, options?: RunSyncOptions): Record<string, RuntimeValue>;
  /**
   * A zero-filled tensor in device memory that stays until `releaseDeviceTensor` (or `release`):
   * fed as an input it is not copied, bound as an output (`RunOptions.outputs`) it is written in
   * place. Needs shared device memory (the cpu device of a dynamic or threaded model) — else
   * TSGE-E4153, as for a dtype without a device representation or memory beyond the limit.
   */
  createDeviceTensor(dtype: DataType, dims: readonly number[]): DeviceTensor;
  /** Frees a device tensor's memory; feeding or binding it afterwards is TSGE-E4153. */
  releaseDeviceTensor(tensor: DeviceTensor): void;
  /** Per-task timings of the runs so far (needs `profile: true`), as a Chrome trace. */
  profile(): ChromeTrace;
  /**
   * Settles when the worker threads have started (with lazy start, runs before that use the
   * calling thread); resolves at once when the executor has no workers.
   */
  whenReady(): Promise<void>;
  /** Frees device memory and terminates workers; later runs fail with TSGE-E6006. */
  release(): Promise<void>;
}

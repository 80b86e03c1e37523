import type { WasmMemory } from '../wasm.js';
/** What a worker handler module receives: its index, the device memory and the handler's data. */
export interface WorkerContext<D = unknown> {
  readonly index: number;
  readonly memory: WasmMemory;
  readonly data: D;
  /** Sends a message to the owner of the pool. */
  post(message: unknown): void;
}

/**
 * A module that runs inside pool workers. `setup` prepares (compiles kernels, binds tasks);
 * `loop`, if present, runs after the pool knows the worker is ready and may block forever
 * (e.g. in `Atomics.wait`); the pool terminates it.
 */
export interface WorkerHandlerModule<D = unknown> {
  setup(context: WorkerContext<D>): void | Promise<void>;
  loop?(context: WorkerContext<D>): void | Promise<void>;
}

export interface WorkerInit {
  readonly type: 'init';
  readonly index: number;
  readonly handler: string;
  readonly memory: WasmMemory;
  readonly data: unknown;
}

export type WorkerReply =
  | { readonly type: 'ready' }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'message'; readonly message: unknown };

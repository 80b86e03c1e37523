import type { DeviceWorkerContextV1 } from '@tsge/metadef';
import type { WasmMemory } from '../wasm.js';
/** What a worker handler module receives: its index, the device memory and the handler's data. */
export interface WorkerContext<D = unknown> extends DeviceWorkerContextV1<D> {
  readonly memory: WasmMemory;
}

/**
 * A module that runs inside pool workers. `setup` prepares (compiles kernels, binds tasks);
 * `loop`, if present, runs after the pool knows the worker is ready and may block forever
 * (e.g. in `Atomics.wait`); the pool terminates it. A module with `loop` and `teardown` makes its
 * threads reusable: once `loop` returns, `teardown` drops everything setup kept (the module stays
 * loaded, its compiled code warm) and the thread waits as a spare for the next pool's `setup`.
 */
export interface WorkerHandlerModule<D = unknown> {
  setup(context: WorkerContext<D>): void | Promise<void>;
  loop?(context: WorkerContext<D>): void | Promise<void>;
  teardown?(context: WorkerContext<D>): void | Promise<void>;
}

export interface WorkerInit {
  readonly type: 'init';
  readonly index: number;
  readonly handler: string;
  readonly memory: WasmMemory;
  readonly data: unknown;
  /** This worker's share of the range to map before setup: [offset, bytes] (see `prefault`). */
  readonly prefault?: readonly [number, number];
}

/**
 * Sent to a thread started ahead of any pool (`prestartWorkers`): import the handler module, then
 * wait as a spare (reply `released`) for a pool's init.
 */
export interface WorkerPreload {
  readonly type: 'preload';
  readonly handler: string;
}

/** A message from the pool's owner to a worker after init (taken with `context.receive()`). */
export interface WorkerPost {
  readonly type: 'post';
  readonly message: unknown;
}

export type WorkerReply =
  /** `reusable`: the handler has `loop` and `teardown`, so the thread says `released` after its loop. */
  | { readonly type: 'ready'; readonly reusable: boolean }
  /** The loop returned and the handler tore its state down: the thread takes another init. */
  | { readonly type: 'released' }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'message'; readonly message: unknown };

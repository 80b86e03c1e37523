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
 * A device: memory, streams, events, kernel modules, launch and synchronize. The CPU device of
 * `@tsge/runtime` implements it; a WebGPU device can later implement the same interface.
 */
export interface DeviceV1 {
  readonly specVersion: 'v1';
  readonly name: string;
  /** One linear memory holding weights, the activation arena and workspaces. */
  readonly memory: LinearMemory;
  readonly threadCount: number;
  /** Reserves `bytes` (aligned to `alignment`, default 64) and returns the byte offset. */
  allocate(bytes: number, alignment?: number): number;
  free(offset: number): void;
  /** A typed view of `count` elements of `dtype` at `offset` (no copy). */
  view(dtype: DataType, offset: number, count: number): TypedArray;
  createStream(): StreamHandle;
  createEvent(): EventHandle;
  /** Compiles a WebAssembly kernel module once so workers can instantiate it over `memory`. */
  loadKernelModule(bytes: Uint8Array): Promise<unknown>;
  synchronize(): Promise<void>;
  release(): Promise<void>;
}

import type { LinearMemory } from '@tsge/metadef';

// Node's type definitions do not declare the WebAssembly global and the DOM lib is not ours to
// pull in, so the little we use is typed here, structurally.

export interface WasmMemory extends LinearMemory {
  readonly buffer: ArrayBuffer | SharedArrayBuffer;
  grow(deltaPages: number): number;
}
/** A compiled WebAssembly module (opaque; structured-cloneable to workers). */
export type WasmModule = object;
export interface WasmInstance {
  readonly exports: Readonly<Record<string, unknown>>;
}

export interface WasmApi {
  Memory: new (descriptor: { initial: number; maximum?: number; shared?: boolean }) => WasmMemory;
  compile(bytes: Uint8Array): Promise<WasmModule>;
  instantiate(module: WasmModule, imports?: Readonly<Record<string, Readonly<Record<string, unknown>>>>): Promise<WasmInstance>;
}

export const wasm: WasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

export type WaitAsyncResult = { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };

/** `Atomics.waitAsync` when the runtime has it (Node 16+). */
export const atomicsWaitAsync: ((array: Int32Array, index: number, value: number, timeoutMs?: number) => WaitAsyncResult) | undefined = (
  Atomics as unknown as { waitAsync?: (array: Int32Array, index: number, value: number, timeoutMs?: number) => WaitAsyncResult }
).waitAsync?.bind(Atomics);

import type { LinearMemory } from '@tsge/metadef';
import { simdKernels } from './kernel-modules.js';

/**
 * Per-thread workspace in device memory: kernels stage im2col panels there, so the generated GEMM
 * reads weights and activations in place and writes results straight into the planned output.
 * The executor reserves one region per thread (`THREAD_WORKSPACE_BYTES`) and binds it on each
 * thread with `bindThreadWorkspace`; every thread then finds its own region by memory.
 */
export const THREAD_WORKSPACE_BYTES = 1 << 20;

const bound = new WeakMap<LinearMemory, { readonly offset: number; readonly bytes: number }>();

/** Binds this thread's workspace region [offset, offset + bytes) of `memory` (64-byte aligned). */
export function bindThreadWorkspace(memory: LinearMemory, offset: number, bytes: number): void {
  if (offset % 64 !== 0 || bytes < 4096 || offset + bytes > memory.buffer.byteLength)
    throw new RangeError(`thread workspace [${offset}, ${offset + bytes}) is not a 64-byte aligned region of the memory`);
  bound.set(memory, { offset, bytes });
  // binding happens at load on every thread: instantiating the SIMD module over this memory here
  // (emitting and compiling it on the thread's first model) keeps that cost out of the first run
  simdKernels(memory);
}

/** This thread's workspace in `memory`, when one is bound. */
export function threadWorkspace(memory: LinearMemory): { readonly offset: number; readonly bytes: number } | undefined {
  return bound.get(memory);
}

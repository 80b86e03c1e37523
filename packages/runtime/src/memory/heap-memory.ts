import type { LinearMemory } from '@tsge/metadef';
import { DeviceMemoryError, PAGE_BYTES } from './device-memory.js';

/**
 * Device memory made of a plain ArrayBuffer (no WebAssembly, no SharedArrayBuffer). Growing
 * replaces the buffer by a larger copy, as a non-shared `WebAssembly.Memory` does: views made
 * before then keep the old bytes, so users re-read `buffer` after anything that may grow it.
 */
export interface HeapMemory {
  readonly memory: LinearMemory;
  /** Grows the memory so that bytes [0, endByte) exist; throws DeviceMemoryError beyond the maximum. */
  ensureCapacity(endByte: number): void;
}

export function createHeapMemory(options: { initialBytes: number; maximumBytes: number }): HeapMemory {
  const pages = (bytes: number): number => Math.max(1, Math.ceil(bytes / PAGE_BYTES));
  const maximumBytes = pages(options.maximumBytes) * PAGE_BYTES;
  let buffer = new ArrayBuffer(Math.min(maximumBytes, pages(options.initialBytes) * PAGE_BYTES));
  const memory: LinearMemory = {
    get buffer() {
      return buffer;
    },
    grow(deltaPages) {
      const before = buffer.byteLength / PAGE_BYTES;
      const bytes = buffer.byteLength + deltaPages * PAGE_BYTES;
      if (bytes > maximumBytes) throw new DeviceMemoryError(bytes, maximumBytes);
      const larger = new ArrayBuffer(bytes);
      new Uint8Array(larger).set(new Uint8Array(buffer));
      buffer = larger;
      return before;
    },
  };
  return {
    memory,
    ensureCapacity(endByte) {
      if (endByte <= buffer.byteLength) return;
      if (endByte > maximumBytes) throw new DeviceMemoryError(endByte, maximumBytes);
      memory.grow(pages(endByte - buffer.byteLength));
    },
  };
}

import type { LinearMemory } from '@tsge/metadef';

interface WasmApi {
  Memory: new (d: { initial: number; maximum?: number }) => LinearMemory;
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;
const PAGE = 65536;

let scratch: LinearMemory | undefined;

/**
 * A private, per-thread WebAssembly memory for kernels that need staging buffers (im2col panels)
 * the memory plan does not provide. Grows on demand; views must be re-taken after each call.
 */
export function scratchMemory(bytes: number): LinearMemory | undefined {
  if (!wasm) return undefined;
  const pages = Math.ceil(bytes / PAGE) + 1;
  if (!scratch) scratch = new wasm.Memory({ initial: pages, maximum: 32768 });
  const have = scratch.buffer.byteLength / PAGE;
  if (have < pages) scratch.grow(pages - have);
  return scratch;
}

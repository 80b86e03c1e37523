// The first write to each page of fresh memory faults; on the machine tsge is measured on (a
// Firecracker VM) a fault cost 12–44 µs, so a first run writing ppocr_det's 39 MB arena spent
// 120–440 ms mapping it. Workers map such a range before their setup, off the first run's path.
import type { DeviceRangeV1 } from '@tsge/metadef';
import type { WasmMemory } from '../wasm.js';

const PAGE = 4096;

/**
 * Maps [offset, offset + bytes) of `memory` into this process by writing each page's first word
 * with an atomic add of zero: the contents stay what they are, even under a concurrent writer.
 */
export function prefault(memory: WasmMemory, offset: number, bytes: number): void {
  const end = Math.min(offset + bytes, memory.buffer.byteLength);
  if (end <= offset) return;
  const words = new Int32Array(memory.buffer);
  for (let at = Math.floor(offset / PAGE) * PAGE; at < end; at += PAGE) Atomics.add(words, at >> 2, 0);
}

/** Worker `index`'s share of `range` among `workers`: whole pages, in order (undefined: none). */
export function shareOf(range: DeviceRangeV1, index: number, workers: number): [number, number] | undefined {
  const pages = Math.ceil(range.bytes / PAGE);
  const first = Math.floor((pages * index) / workers);
  const last = Math.floor((pages * (index + 1)) / workers);
  if (last <= first) return undefined;
  const offset = range.offset + first * PAGE;
  return [offset, Math.min(range.offset + range.bytes, range.offset + last * PAGE) - offset];
}

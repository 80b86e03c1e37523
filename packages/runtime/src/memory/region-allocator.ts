import { alignUp } from './views.js';

/** Places blocks in a growing address space; `grow` is asked for more room when needed. */
export interface RegionAllocator {
  allocate(bytes: number, alignment?: number): number;
  free(offset: number): void;
  /** Size of the live block at `offset`, or undefined. */
  sizeOf(offset: number): number | undefined;
  /** Highest byte in use + 1. */
  readonly highWater: number;
  readonly liveBytes: number;
}

interface Block {
  offset: number;
  bytes: number;
}

/**
 * First-fit allocator with coalescing free list. Allocations are few (weights, one arena per
 * concurrent run, dynamic tensors through the caching allocator), so a sorted array is enough.
 */
export function createRegionAllocator(options: { base?: number; ensureCapacity: (endByte: number) => void }): RegionAllocator {
  const base = options.base ?? 0;
  const freeList: Block[] = [];
  const live = new Map<number, number>();
  let end = base;
  let liveBytes = 0;

  function takeFree(bytes: number, alignment: number): number | undefined {
    for (let i = 0; i < freeList.length; i++) {
      const block = freeList[i] as Block;
      const start = alignUp(block.offset, alignment);
      const waste = start - block.offset;
      if (block.bytes - waste < bytes) continue;
      freeList.splice(i, 1);
      if (waste > 0) insertFree({ offset: block.offset, bytes: waste });
      const rest = block.bytes - waste - bytes;
      if (rest > 0) insertFree({ offset: start + bytes, bytes: rest });
      return start;
    }
    return undefined;
  }
  function insertFree(block: Block): void {
    let i = 0;
    while (i < freeList.length && (freeList[i] as Block).offset < block.offset) i++;
    freeList.splice(i, 0, block);
    // merge with neighbours
    const next = freeList[i + 1];
    if (next && block.offset + block.bytes === next.offset) {
      block.bytes += next.bytes;
      freeList.splice(i + 1, 1);
    }
    const prev = freeList[i - 1];
    if (prev && prev.offset + prev.bytes === block.offset) {
      prev.bytes += block.bytes;
      freeList.splice(i, 1);
    }
  }

  return {
    allocate(bytes, alignment = 64) {
      if (!Number.isFinite(bytes) || bytes < 0) throw new RangeError(`cannot allocate ${bytes} bytes`);
      const size = Math.max(alignUp(bytes, alignment), alignment);
      let offset = takeFree(size, alignment);
      if (offset === undefined) {
        offset = alignUp(end, alignment);
        options.ensureCapacity(offset + size);
        if (offset > end) insertFree({ offset: end, bytes: offset - end });
        end = offset + size;
      }
      live.set(offset, size);
      liveBytes += size;
      return offset;
    },
    free(offset) {
      const size = live.get(offset);
      if (size === undefined) throw new RangeError(`no live block at offset ${offset}`);
      live.delete(offset);
      liveBytes -= size;
      if (offset + size === end) {
        end = offset;
        // give trailing free space back to the top
        const last = freeList[freeList.length - 1];
        if (last && last.offset + last.bytes === end) {
          end = last.offset;
          freeList.pop();
        }
      } else {
        insertFree({ offset, bytes: size });
      }
    },
    sizeOf: (offset) => live.get(offset),
    get highWater() {
      return end;
    },
    get liveBytes() {
      return liveBytes;
    },
  };
}

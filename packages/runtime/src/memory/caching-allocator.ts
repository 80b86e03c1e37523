import type { RegionAllocator } from './region-allocator.js';
import { alignUp } from './views.js';

/** Dynamic-shape tensors: freed blocks are kept by size class and reused by later runs. */
export interface CachingAllocator {
  allocate(bytes: number): number;
  free(offset: number): void;
  /** Returns every cached block to the region allocator. */
  trim(): void;
  readonly cachedBytes: number;
}

/** Size classes are powers of two from 64 bytes, so a block serves any request up to its size. */
export function createCachingAllocator(regions: RegionAllocator): CachingAllocator {
  const cache = new Map<number, number[]>();
  const classOf = new Map<number, number>();
  let cachedBytes = 0;
  const sizeClass = (bytes: number): number => {
    let size = 64;
    while (size < bytes) size *= 2;
    return size;
  };
  return {
    allocate(bytes) {
      const size = sizeClass(alignUp(Math.max(bytes, 1), 64));
      const list = cache.get(size);
      const reused = list?.pop();
      if (reused !== undefined) {
        cachedBytes -= size;
        return reused;
      }
      const offset = regions.allocate(size, 64);
      classOf.set(offset, size);
      return offset;
    },
    free(offset) {
      const size = classOf.get(offset);
      if (size === undefined) throw new RangeError(`offset ${offset} was not allocated by the caching allocator`);
      const list = cache.get(size) ?? [];
      list.push(offset);
      cache.set(size, list);
      cachedBytes += size;
    },
    trim() {
      for (const list of cache.values()) {
        for (const offset of list) {
          regions.free(offset);
          classOf.delete(offset);
        }
      }
      cache.clear();
      cachedBytes = 0;
    },
    get cachedBytes() {
      return cachedBytes;
    },
  };
}

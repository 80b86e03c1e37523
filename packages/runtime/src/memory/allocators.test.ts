import { describe, expect, it } from 'vitest';
import { createCachingAllocator } from './caching-allocator.js';
import { createDeviceMemory } from './device-memory.js';
import { createRegionAllocator } from './region-allocator.js';
import { viewOf } from './views.js';

describe('region allocator', () => {
  it('aligns, reuses freed space and coalesces neighbours', () => {
    const ends: number[] = [];
    const regions = createRegionAllocator({ base: 64, ensureCapacity: (end) => ends.push(end) });
    const a = regions.allocate(10);
    const b = regions.allocate(100);
    const c = regions.allocate(64);
    expect([a, b, c]).toEqual([64, 128, 256]);
    regions.free(a);
    regions.free(b);
    // a and b merged into one 192-byte hole
    expect(regions.allocate(150)).toBe(64);
    expect(regions.highWater).toBe(320);
    regions.free(c);
    expect(regions.highWater).toBe(256);
    expect(() => regions.free(999)).toThrow(RangeError);
  });

  it('caching allocator reuses blocks by size class', () => {
    const regions = createRegionAllocator({ ensureCapacity: () => undefined });
    const cache = createCachingAllocator(regions);
    const a = cache.allocate(100);
    cache.free(a);
    expect(cache.cachedBytes).toBe(128);
    expect(cache.allocate(120)).toBe(a);
    const b = cache.allocate(1000);
    cache.free(b);
    cache.trim();
    expect(cache.cachedBytes).toBe(0);
    expect(regions.sizeOf(b)).toBeUndefined();
  });
});

describe('device memory', () => {
  it('grows up to its maximum and rejects more with TSGE-E6005', () => {
    const memory = createDeviceMemory({ shared: true, initialBytes: 65536, maximumBytes: 3 * 65536 });
    expect(memory.memory.buffer).toBeInstanceOf(SharedArrayBuffer);
    memory.ensureCapacity(2 * 65536 + 1);
    expect(memory.memory.buffer.byteLength).toBe(3 * 65536);
    expect(() => memory.ensureCapacity(4 * 65536)).toThrow(/TSGE-E6005/);
  });

  it('views are bounds- and alignment-checked', () => {
    const buffer = new ArrayBuffer(64);
    expect(viewOf(buffer, 'float32', 8, 4)).toHaveLength(4);
    expect(() => viewOf(buffer, 'float32', 60, 2)).toThrow(RangeError);
    expect(() => viewOf(buffer, 'float64', 4, 1)).toThrow(/aligned/);
    expect(viewOf(buffer, 'complex64', 0, 2)).toHaveLength(4);
  });
});

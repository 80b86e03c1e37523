import type { HostTensor, KernelContextV1, KernelV1, LinearMemory } from '@tsge/metadef';
import { defineKernel } from '../define.js';
import { MOVABLE_DTYPES } from './simd-transpose.js';
import { registerTileFunction, runTiles } from './tiles.js';

/** Concatenations of at least this many bytes split into copies across threads. */
const PARALLEL_BYTES = 1 << 19;
/** The tile area holds 2048 numbers: at most this many copies of three. */
const MAX_TILES = 256;

/** The storage's bytes, or undefined for strings. */
function bytesOf(t: HostTensor): Uint8Array | undefined {
  if (Array.isArray(t.data)) return undefined;
  const { buffer, byteOffset, byteLength } = t.data as Uint8Array;
  return new Uint8Array(buffer, byteOffset, byteLength);
}

/**
 * Concat as byte copies (memmove) of each input's block per outer index. In device memory, large
 * concatenations along an outer axis split their copies into pieces run by the thread pool.
 * Mismatched dims, strings and packed 4-bit types go to the reference kernel (which reports them).
 */
export function simdConcatKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: 'Concat',
    name: 'wasm-simd',
    dtypes: MOVABLE_DTYPES,
    parallel: true,
    compute: (ctx: KernelContextV1) => {
      const parts: HostTensor[] = [];
      for (let i = 0; i < ctx.inputCount; i++) {
        const t = ctx.tensor(i);
        if (!t) return reference.compute(ctx);
        parts.push(t);
      }
      const first = parts[0];
      if (!first) return reference.compute(ctx);
      const rank = first.dims.length;
      const given = ctx.attrs.int('axis');
      const axis = given < 0 ? given + rank : given;
      if (!(axis >= 0 && axis < rank)) return reference.compute(ctx);
      const dims = [...first.dims];
      dims[axis] = 0;
      for (const p of parts) {
        if (p.type !== first.type || p.dims.length !== rank || p.dims.some((d, i) => i !== axis && d !== first.dims[i])) {
          return reference.compute(ctx);
        }
        dims[axis] = (dims[axis] as number) + (p.dims[axis] as number);
      }
      const sources = parts.map(bytesOf);
      const count = dims.reduce((a, d) => a * d, 1);
      const y = ctx.output(0, dims, first.type);
      const target = bytesOf(y);
      if (!target || sources.some((s) => !s) || count === 0 || target.byteLength % count !== 0) return reference.compute(ctx);
      const elementBytes = target.byteLength / count;
      const outer = dims.slice(0, axis).reduce((a, d) => a * d, 1);
      const inner = dims.slice(axis + 1).reduce((a, d) => a * d, 1) * elementBytes;
      const row = (dims[axis] as number) * inner;
      // copies as [source byte, target byte, bytes], relative to each array
      const copies: [Uint8Array, number, number, number][] = [];
      let offset = 0;
      parts.forEach((p, i) => {
        const block = (p.dims[axis] as number) * inner;
        const source = sources[i] as Uint8Array;
        if (block > 0) for (let o = 0; o < outer; o++) copies.push([source, o * block, o * row + offset, block]);
        offset += block;
      });
      const memory = ctx.memory;
      const threads = ctx.parallel?.threads ?? 1;
      const shared = memory && threads > 1 && target.buffer === memory.buffer && sources.every((s) => s?.buffer === memory.buffer);
      if (!memory || !shared || target.byteLength < PARALLEL_BYTES || copies.length > MAX_TILES / 2) {
        for (const [source, from, to, bytes] of copies) target.set(source.subarray(from, from + bytes), to);
        return;
      }
      // pieces of about total / (4 × threads) bytes, never cutting a copy into pieces below 64 KiB
      const piece = Math.max(1 << 16, Math.ceil(target.byteLength / (4 * threads)));
      const tiles: number[][] = [];
      for (const [source, from, to, bytes] of copies) {
        const n = Math.min(Math.ceil(bytes / piece), Math.floor(MAX_TILES / copies.length));
        const size = Math.ceil(bytes / Math.max(1, n));
        for (let at = 0; at < bytes; at += size) {
          tiles.push([source.byteOffset + from + at, target.byteOffset + to + at, Math.min(size, bytes - at)]);
        }
      }
      runTiles(memory, ctx.parallel, COPY_TILE, tiles);
    },
  });
}

const COPY_TILE = 'js.copyBytes';

/** Tile: one memmove of `bytes` bytes inside the device memory. */
registerTileFunction(COPY_TILE, (memory: LinearMemory, t: readonly number[]) => {
  const [from, to, bytes] = t as [number, number, number];
  new Uint8Array(memory.buffer).copyWithin(to, from, from + bytes);
});

import type { LinearMemory } from '@tsge/metadef';

/**
 * Whole-memory typed views, made once per buffer (a memory's buffer changes only when it grows).
 * Tile functions run hundreds of times a run on every thread: a view made per call is garbage the
 * workers' scavenger must collect, and its pauses stall the threads waiting on a paused tile.
 */
interface Views {
  readonly u8: Uint8Array;
  readonly i32: Int32Array;
  readonly f32: Float32Array;
}
const views = new WeakMap<ArrayBufferLike, Views>();

function viewsOf(memory: LinearMemory): Views {
  const buffer = memory.buffer;
  let v = views.get(buffer);
  if (!v) {
    const words = buffer.byteLength >>> 2;
    v = { u8: new Uint8Array(buffer), i32: new Int32Array(buffer, 0, words), f32: new Float32Array(buffer, 0, words) };
    views.set(buffer, v);
  }
  return v;
}

/** The memory's bytes. */
export const bytesOf = (memory: LinearMemory): Uint8Array => viewsOf(memory).u8;
/** The memory as int32 words (index = byte offset / 4). */
export const int32Of = (memory: LinearMemory): Int32Array => viewsOf(memory).i32;
/** The memory as float32 words (index = byte offset / 4). */
export const float32Of = (memory: LinearMemory): Float32Array => viewsOf(memory).f32;

// A fast axis permutation for typed-array storage: the permutation is first reduced to its
// essential axes (size-1 axes dropped, axes that stay neighbours merged), then run either as
// contiguous row copies (the last axis stays last) or as cache-blocked 2-D transposes.
import type { LinearMemory, ParallelRunnerV1, TensorStorage } from '@tsge/metadef';
import { tileFunction, runTiles, splitRange } from './tiles.js';
import { type WordMovers, wordMovers } from './transpose-module.js';

/** Element storage as words of the copy width (bit-exact: floats never pass through a number). */
type Words = Uint8Array | Uint16Array | Int32Array;

/** Block edge of the 2-D transposes: 32×32 words keep both the rows read and written in L1. */
const BLOCK = 32;

/** The permutation of `dims` with size-1 axes dropped and input-adjacent output runs merged. */
export function coalescePermutation(dims: readonly number[], perm: readonly number[]): { dims: number[]; perm: number[] } {
  const kept = dims.map((_, axis) => axis).filter((axis) => dims[axis] !== 1);
  const index = new Map(kept.map((axis, i) => [axis, i]));
  // runs [start, end) of kept input axes that follow each other in the output too
  const runs: { start: number; end: number; size: number }[] = [];
  for (const axis of perm) {
    const i = index.get(axis);
    if (i === undefined) continue;
    const last = runs[runs.length - 1];
    if (last && last.end === i) {
      last.end++;
      last.size *= dims[axis] as number;
    } else runs.push({ start: i, end: i + 1, size: dims[axis] as number });
  }
  const byInput = [...runs].sort((a, b) => a.start - b.start);
  return { dims: byInput.map((r) => r.size), perm: runs.map((r) => byInput.indexOf(r)) };
}

function rowMajorStrides(dims: readonly number[]): number[] {
  const strides = new Array<number>(dims.length);
  let s = 1;
  for (let i = dims.length - 1; i >= 0; i--) {
    strides[i] = s;
    s *= dims[i] as number;
  }
  return strides;
}

/** The storage as words of `width` bytes (1, 2 or 4), or undefined when it does not divide. */
function wordsOf(storage: TensorStorage, width: number): Words | undefined {
  if (Array.isArray(storage)) return undefined;
  const { buffer, byteOffset, byteLength } = storage as Uint8Array;
  if (width === 1) return new Uint8Array(buffer, byteOffset, byteLength);
  if (width === 2 && byteOffset % 2 === 0) return new Uint16Array(buffer, byteOffset, byteLength / 2);
  if (width === 4 && byteOffset % 4 === 0) return new Int32Array(buffer, byteOffset, byteLength / 4);
  return undefined;
}

/** Where tiles of a large permutation may run: the device memory both tensors live in, and its threads. */
export interface TransposeThreads {
  readonly memory: LinearMemory;
  readonly parallel: ParallelRunnerV1 | undefined;
}

/**
 * Permutations of at least this many words (4 MiB of floats) split into tiles (of at least half as
 * many) when threads are offered. Smaller ones are bound by memory traffic, and measured no faster
 * on two threads, only more exposed to a helper thread being descheduled.
 */
const PARALLEL_WORDS = 1 << 20;

/**
 * target = source permuted so output axis d is input axis perm[d] (`dims` are the input's).
 * Returns false, touching nothing, when the storage is not a typed array of whole elements
 * (strings, packed 4-bit types); the caller then uses the general copy. With `threads` and both
 * tensors in that memory, large permutations split along the first output axis.
 */
export function blockedTranspose(
  source: TensorStorage,
  target: TensorStorage,
  dims: readonly number[],
  perm: readonly number[],
  threads?: TransposeThreads,
): boolean {
  let count = 1;
  for (const d of dims) count *= d;
  if (Array.isArray(source) || Array.isArray(target)) return false;
  if (count === 0) return true;
  const bytes = (source as Uint8Array).byteLength;
  if (bytes % count !== 0 || (target as Uint8Array).byteLength !== bytes) return false;
  const elementBytes = bytes / count;
  // elements wider than 4 bytes move as several 4-byte lanes: one more axis that stays last
  const width = Math.min(elementBytes, 4);
  const lanes = elementBytes / width;
  const from = wordsOf(source, width);
  const to = wordsOf(target, width);
  if (!from || !to || !Number.isInteger(lanes)) return false;
  const wide = lanes > 1;
  const reduced = coalescePermutation(wide ? [...dims, lanes] : dims, wide ? [...perm, perm.length] : perm);
  const firstAxis = reduced.dims[reduced.perm[0] ?? 0] ?? 1;
  const inMemory = threads !== undefined && from.buffer === threads.memory.buffer && to.buffer === threads.memory.buffer;
  const pieces =
    inMemory && from.length >= PARALLEL_WORDS
      ? splitRange(firstAxis, threads.parallel?.threads ?? 1, 1, from.length / firstAxis, PARALLEL_WORDS / 2)
      : [];
  if (!threads || pieces.length < 2) {
    const plane = inMemory ? wordMovers(threads.memory) : undefined;
    permuteWords(from, to, reduced.dims, reduced.perm, 0, firstAxis, plane);
    return true;
  }
  const head = [from.byteOffset, to.byteOffset, from.length, width, reduced.dims.length, ...reduced.dims, ...reduced.perm];
  runTiles(
    threads.memory,
    threads.parallel,
    transposeTile,
    pieces.map(([first, last]) => [...head, first, last]),
  );
  return true;
}

const TRANSPOSE_TILE = 'js.transpose';

/** Tile: output-axis-0 indices [first, last) of a reduced permutation (see blockedTranspose). */
export const transposeTile = tileFunction(TRANSPOSE_TILE, (memory: LinearMemory, t: readonly number[]) => {
  const [source, target, words, width, rank] = t as [number, number, number, number, number];
  const dims = t.slice(5, 5 + rank);
  const perm = t.slice(5 + rank, 5 + 2 * rank);
  const [first, last] = t.slice(5 + 2 * rank) as [number, number];
  const view = (at: number): Words =>
    width === 1
      ? new Uint8Array(memory.buffer, at, words)
      : width === 2
        ? new Uint16Array(memory.buffer, at, words)
        : new Int32Array(memory.buffer, at, words);
  permuteWords(view(source), view(target), dims, perm, first, last, wordMovers(memory));
});

/**
 * Permutes words with a reduced permutation (no size-1 axes, no mergeable neighbours), only the
 * output coordinates whose first index is in [first, last). Words in device memory move their
 * 2-D planes (and 4-byte words their rows) with `movers` (WebAssembly) when given.
 */
function permuteWords(
  source: Words,
  target: Words,
  dims: readonly number[],
  perm: readonly number[],
  first: number,
  last: number,
  movers?: WordMovers,
): void {
  const rank = dims.length;
  if (rank <= 1) {
    target.set(source.subarray(first, last), first);
    return;
  }
  const inStrides = rowMajorStrides(dims);
  const outStrides = rowMajorStrides(perm.map((p) => dims[p] as number));
  // the slice [first, last) of output axis 0, as its own tensor at these offsets (full strides)
  const outDims = perm.map((p, d) => (d === 0 ? last - first : (dims[p] as number)));
  const s0 = first * (inStrides[perm[0] as number] as number);
  const o0 = first * (outStrides[0] as number);
  if (perm[rank - 1] === rank - 1) {
    // the last axis stays last: contiguous rows of `row` words
    const row = dims[rank - 1] as number;
    if (movers && source.BYTES_PER_ELEMENT === 4) {
      // one WebAssembly call per run of output axis rank-2
      const count = outDims[rank - 2] as number;
      const step = inStrides[perm[rank - 2] as number] as number;
      forEachOuter(
        outDims.slice(0, rank - 2),
        perm.slice(0, rank - 2).map((p) => inStrides[p] as number),
        outStrides.slice(0, rank - 2),
        s0,
        o0,
        (s, o) => movers.copyRows(source.byteOffset + s * 4, target.byteOffset + o * 4, count, row * 4, step * 4, row * 4),
      );
      return;
    }
    forEachOuter(
      outDims.slice(0, rank - 1),
      perm.slice(0, rank - 1).map((p) => inStrides[p] as number),
      outStrides.slice(0, rank - 1),
      s0,
      o0,
      (s, o) => {
        if (row >= 32) target.set(source.subarray(s, s + row), o);
        else for (let j = 0; j < row; j++) target[o + j] = source[s + j] as number;
      },
    );
    return;
  }
  // the output's last axis reads input axis `a` (stride sa); the input's last axis lands at output axis q (stride sq)
  const a = perm[rank - 1] as number;
  const q = perm.indexOf(rank - 1);
  const rows = outDims[q] as number;
  const columns = outDims[rank - 1] as number;
  const sa = inStrides[a] as number;
  const sq = outStrides[q] as number;
  const others = outDims.map((_, d) => d).filter((d) => d !== q && d !== rank - 1);
  const width = source.BYTES_PER_ELEMENT;
  const plane = movers && (width === 4 ? movers.transpose32 : width === 2 ? movers.transpose16 : movers.transpose8);
  forEachOuter(
    others.map((d) => outDims[d] as number),
    others.map((d) => inStrides[perm[d] as number] as number),
    others.map((d) => outStrides[d] as number),
    s0,
    o0,
    plane
      ? (s, o) => plane(source.byteOffset + s * width, target.byteOffset + o * width, rows, columns, sa * width, sq * width)
      : (s, o) => transposePlane(source, target, s, o, rows, columns, sa, sq),
  );
}

/** target[o + i·sq + j] = source[s + j·sa + i] for i < rows, j < columns, in square blocks. */
function transposePlane(source: Words, target: Words, s: number, o: number, rows: number, columns: number, sa: number, sq: number): void {
  if (columns <= 8) {
    // few columns (DepthToSpace's block offsets): one long strided write per column
    for (let j = 0; j < columns; j++) {
      let from = s + j * sa;
      let to = o + j;
      for (let i = 0; i < rows; i++) {
        target[to] = source[from++] as number;
        to += sq;
      }
    }
    return;
  }
  for (let i0 = 0; i0 < rows; i0 += BLOCK) {
    const i1 = Math.min(rows, i0 + BLOCK);
    for (let j0 = 0; j0 < columns; j0 += BLOCK) {
      const j1 = Math.min(columns, j0 + BLOCK);
      for (let i = i0; i < i1; i++) {
        let from = s + j0 * sa + i;
        let to = o + i * sq + j0;
        for (let j = j0; j < j1; j++) {
          target[to++] = source[from] as number;
          from += sa;
        }
      }
    }
  }
}

/** Calls fn(sourceOffset, targetOffset) for every coordinate of `dims` (row-major order) from (s0, o0). */
function forEachOuter(
  dims: readonly number[],
  inStrides: readonly number[],
  outStrides: readonly number[],
  s0: number,
  o0: number,
  fn: (s: number, o: number) => void,
): void {
  const rank = dims.length;
  if (rank === 0) {
    fn(s0, o0);
    return;
  }
  const coord = new Int32Array(rank);
  let s = s0;
  let o = o0;
  for (;;) {
    fn(s, o);
    let d = rank - 1;
    while (d >= 0) {
      coord[d] = (coord[d] as number) + 1;
      s += inStrides[d] as number;
      o += outStrides[d] as number;
      if ((coord[d] as number) < (dims[d] as number)) break;
      s -= (inStrides[d] as number) * (dims[d] as number);
      o -= (outStrides[d] as number) * (dims[d] as number);
      coord[d] = 0;
      d--;
    }
    if (d < 0) return;
  }
}

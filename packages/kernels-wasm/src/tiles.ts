import type { LinearMemory, ParallelRunnerV1, TileFunctionV1 } from '@tsge/metadef';

/**
 * Tile functions: the units of intra-op parallelism. Each is a named value that the library lists in
 * its `KernelLibraryV1.tiles`, so any thread with the library loaded and the same device memory can
 * run it from numbers alone (`ParallelRunnerV1.run`); tiles of one call write disjoint parts of the
 * output.
 */
export function tileFunction(name: string, run: (memory: LinearMemory, args: readonly number[]) => void): TileFunctionV1 {
  return { name, run };
}

/** Runs tiles through the thread pool when there is one and more than one tile, else in order here. */
export function runTiles(
  memory: LinearMemory,
  parallel: ParallelRunnerV1 | undefined,
  tile: TileFunctionV1,
  tiles: readonly (readonly number[])[],
): void {
  if (parallel && parallel.threads > 1 && tiles.length > 1) {
    parallel.run(tile.name, tiles);
    return;
  }
  for (const t of tiles) tile.run(memory, t);
}

/**
 * Splits [0, total) into about `4 × threads` contiguous ranges (enough to balance uneven threads),
 * each a multiple of `granule` and carrying at least `minWork` units of `workPerItem`.
 */
export function splitRange(total: number, threads: number, granule: number, workPerItem: number, minWork = 1 << 20): [number, number][] {
  const wanted = threads > 1 ? threads * 4 : 1;
  const byWork = Math.max(1, Math.floor((total * workPerItem) / minWork));
  const pieces = Math.max(1, Math.min(wanted, byWork, Math.ceil(total / granule)));
  let size = Math.ceil(total / pieces);
  size = Math.ceil(size / granule) * granule;
  const ranges: [number, number][] = [];
  for (let start = 0; start < total; start += size) ranges.push([start, Math.min(total, start + size)]);
  return ranges;
}

/**
 * How many tiles an operation of `work` units splits into on `threads` threads: one below
 * `minSplitWork` (a helper's part would cost less than handing it over), else the threads times 1 to
 * 4 (one more round per `tileWork` units a thread), so that tiles, claimed one at a time, come out
 * even between the threads. A fixed floor of several hundred microseconds of work a tile left
 * layers of 0.1–0.4 ms (most of a mobile network's) on one thread of two.
 */
export function threadPieces(work: number, threads: number, minSplitWork: number, tileWork: number): number {
  if (threads <= 1 || work < minSplitWork) return 1;
  return threads * Math.min(4, Math.max(1, Math.floor(work / (threads * tileWork))));
}

/** [0, total) as `pieces` ranges of about equal size, each boundary a multiple of `granule` (empty ones dropped). */
export function evenRanges(total: number, pieces: number, granule: number): [number, number][] {
  const units = Math.ceil(total / granule);
  const ranges: [number, number][] = [];
  for (let i = 0; i < pieces; i++) {
    const start = Math.min(total, Math.round((i * units) / pieces) * granule);
    const end = Math.min(total, Math.round(((i + 1) * units) / pieces) * granule);
    if (end > start) ranges.push([start, end]);
  }
  return ranges;
}

/** A tuple of N numbers: the typed view of a tile's (or a wasm call's) numeric arguments. */
export type NumberTuple<N extends number, Acc extends number[] = []> = Acc['length'] extends N ? Acc : NumberTuple<N, [...Acc, number]>;

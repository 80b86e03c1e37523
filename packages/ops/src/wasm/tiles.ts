import type { LinearMemory, ParallelRunnerV1 } from '@tsge/metadef';

/**
 * Tile functions: the units of intra-op parallelism. Each is registered by name so that any
 * thread with @tsge/ops loaded and the same device memory can run it from numbers alone
 * (`ParallelRunnerV1.run`); tiles of one call write disjoint parts of the output.
 */
export type TileFunction = (memory: LinearMemory, args: readonly number[]) => void;

const registry = new Map<string, TileFunction>();

export function registerTileFunction(name: string, fn: TileFunction): void {
  if (registry.has(name)) throw new Error(`tile function ${name} is already registered`);
  registry.set(name, fn);
}

/** Runs one tile (called by helper threads of the executor). */
export function runTile(memory: LinearMemory, name: string, args: readonly number[]): void {
  const fn = registry.get(name);
  if (!fn) throw new Error(`unknown tile function ${name}`);
  fn(memory, args);
}

/** Runs tiles through the thread pool when there is one and more than one tile, else in order here. */
export function runTiles(
  memory: LinearMemory,
  parallel: ParallelRunnerV1 | undefined,
  name: string,
  tiles: readonly (readonly number[])[],
): void {
  if (parallel && parallel.threads > 1 && tiles.length > 1) {
    parallel.run(name, tiles);
    return;
  }
  for (const t of tiles) runTile(memory, name, t);
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

/** A tuple of N numbers: the typed view of a tile's (or a wasm call's) numeric arguments. */
export type NumberTuple<N extends number, Acc extends number[] = []> = Acc['length'] extends N ? Acc : NumberTuple<N, [...Acc, number]>;

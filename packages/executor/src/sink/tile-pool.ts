import type { LinearMemory, ParallelRunnerV1 } from '@tsge/metadef';
import { spinThenWait } from './spin-wait.js';

/**
 * Intra-op parallelism for sink workers (`ParallelRunnerV1`). Each worker owns one job area in
 * shared memory; a kernel on that worker publishes tiles there (function name + numeric args),
 * rings the doorbell and takes tiles itself; idle workers wake, claim tiles with an atomic counter
 * and run them through the kernel library's tile registry. A busy pool means less help, never a wait.
 *
 * Claims carry the job's generation: the claim word holds `generation << TILE_BITS | next tile`,
 * and a helper takes a tile with a compare-and-swap that fails once the job is closed or replaced.
 * So the owner waits only for tiles a helper actually took, never for a helper that looked at the
 * job and was then descheduled (on a loaded two-core machine that wait cost whole time slices).
 *
 * Job area (Int32 words, then the name, Float64 args and, when profiling, per worker the tiles it
 * ran of the job with the start of its first and the end of its last, in µs since the epoch):
 *   [0] claim word (generation 0: no job)  [1] tile count  [2] tiles done  [3] args per tile
 *   [4] name length  [5] error flag
 */
const W = { claim: 0, count: 1, done: 2, argCount: 3, nameLength: 4, error: 5 } as const;
const TILE_BITS = 12;
const TILE_MASK = (1 << TILE_BITS) - 1;
/** Generations wrap below 2^19 so the claim word stays a positive Int32. */
const GENERATIONS = (1 << (31 - TILE_BITS)) - 1;
const HEADER_WORDS = 6;
const NAME_BYTES = 64;
const ARG_SLOTS = 2048;
/** At most `ARG_SLOTS` tiles (one arg each), so a tile index always fits below `TILE_MASK`. */
const JOB_BYTES = HEADER_WORDS * 4 + NAME_BYTES + ARG_SLOTS * 8;
const STAT_WORDS = 3;
/** Bytes of one worker's job area in a pool of `workers`. */
export const tileAreaBytes = (workers: number): number => JOB_BYTES + workers * STAT_WORDS * 8;

/** Tiles of one job that helper `worker` ran (what the profile shows on the helper's thread). */
export interface HelperTiles {
  readonly worker: number;
  readonly tiles: number;
  /** µs since the epoch. */
  readonly start: number;
  readonly end: number;
}

export type TileRunner = (memory: LinearMemory, name: string, args: readonly number[]) => void;

interface Area {
  readonly words: Int32Array;
  readonly name: Uint8Array;
  readonly args: Float64Array;
  readonly stats: Float64Array;
}

function areaAt(buffer: ArrayBufferLike, offset: number, workers: number): Area {
  return {
    words: new Int32Array(buffer, offset, HEADER_WORDS),
    name: new Uint8Array(buffer, offset + HEADER_WORDS * 4, NAME_BYTES),
    args: new Float64Array(buffer, offset + HEADER_WORDS * 4 + NAME_BYTES, ARG_SLOTS),
    stats: new Float64Array(buffer, offset + JOB_BYTES, workers * STAT_WORDS),
  };
}

const nowMicros = (): number => (performance.timeOrigin + performance.now()) * 1000;

/**
 * Takes the next tile of job `generation`, or returns -1 when the job has none left or is no longer
 * that job. The count read between the generation check and the swap belongs to the job: the owner
 * closes the claim word before it rewrites the count of the next job.
 */
function claim(words: Int32Array, generation: number): number {
  for (;;) {
    const word = Atomics.load(words, W.claim);
    if (word >>> TILE_BITS !== generation) return -1;
    const tile = word & TILE_MASK;
    if (tile >= Atomics.load(words, W.count)) return -1;
    if (Atomics.compareExchange(words, W.claim, word, word + 1) === word) return tile;
  }
}

/**
 * Runs tiles of job `generation` in `area` until none is left; returns whether one failed. With
 * `self` it counts each tile in the area's stats before the tile counts as done, so the owner,
 * which reads them once all tiles are done, sees every helper's share. `runTile` gets the tile's
 * index; nothing here allocates per tile (a run's hundreds of tiles would otherwise feed the
 * workers' scavenger, whose pauses stall whichever thread waits on the paused one).
 */
function drain(area: Area, generation: number, runTile: (tile: number) => void, self?: number): boolean {
  const { words } = area;
  let failed = false;
  let start = 0;
  for (let tile = claim(words, generation); tile >= 0; tile = claim(words, generation)) {
    // a claimed tile holds the job open: its count, name and args are this job's until it is done
    const count = Atomics.load(words, W.count);
    if (self !== undefined && start === 0) start = nowMicros();
    try {
      runTile(tile);
    } catch {
      failed = true;
      Atomics.store(words, W.error, 1);
    }
    if (self !== undefined) {
      const at = self * STAT_WORDS;
      const stats = area.stats;
      if (stats[at] === 0) stats[at + 1] = start;
      stats[at] = (stats[at] as number) + 1;
      stats[at + 2] = nowMicros();
    }
    if (Atomics.add(words, W.done, 1) + 1 === count) Atomics.notify(words, W.done);
  }
  return failed;
}

/**
 * How a helper runs tiles of another worker's area without allocating: the job's tile function
 * name is decoded once per distinct name, and one argument array per argument count is refilled
 * per tile (tile functions read their arguments during the call and keep none).
 */
function createHelperState(area: Area, runTile: (name: string, args: readonly number[]) => void): (tile: number) => void {
  // the names seen in this area (a model has a handful of tile functions), each as its bytes
  const seen: { bytes: Uint8Array; name: string }[] = [];
  let last: { bytes: Uint8Array; name: string } | undefined;
  const matches = (entry: { bytes: Uint8Array }, length: number): boolean => {
    if (entry.bytes.length !== length) return false;
    for (let i = 0; i < length; i++) if (area.name[i] !== entry.bytes[i]) return false;
    return true;
  };
  const nameOf = (words: Int32Array): string => {
    const length = Atomics.load(words, W.nameLength);
    if (last && matches(last, length)) return last.name;
    last = seen.find((entry) => matches(entry, length));
    if (!last) {
      const bytes = area.name.slice(0, length);
      last = { bytes, name: decoder.decode(bytes) };
      seen.push(last);
    }
    return last.name;
  };
  const scratch = new Map<number, number[]>();
  const argsOf = (tile: number, argCount: number): number[] => {
    let args = scratch.get(argCount);
    if (!args) {
      args = new Array<number>(argCount).fill(0);
      scratch.set(argCount, args);
    }
    const from = tile * argCount;
    for (let i = 0; i < argCount; i++) args[i] = area.args[from + i] as number;
    return args;
  };
  return (tile) => runTile(nameOf(area.words), argsOf(tile, Atomics.load(area.words, W.argCount)));
}

const decoder = new TextDecoder();

export interface TilePool {
  /** The runner kernels on worker `self` get as `ctx.parallel`. */
  runnerFor(self: number): ParallelRunnerV1;
  /** Helps with every active job of other workers; returns whether there was any. */
  help(self: number): boolean;
}

export function createTilePool(options: {
  memory: LinearMemory;
  offset: number;
  workers: number;
  runTile: TileRunner;
  /** Wakes idle workers (rings the doorbell they sleep on). */
  wake: () => void;
  /** Profiling: called on the owner after each job with the tiles each helper ran of it. */
  helped?: (tileFunction: string, helpers: readonly HelperTiles[]) => void;
}): TilePool {
  const { memory, workers, runTile } = options;
  let buffer: ArrayBufferLike | undefined;
  let areas: Area[] = [];
  /** Per area, how this thread runs a tile of it as a helper. */
  let helpers: ((tile: number) => void)[] = [];
  const areasNow = (): Area[] => {
    if (buffer !== memory.buffer) {
      buffer = memory.buffer;
      areas = Array.from({ length: workers }, (_, w) => areaAt(memory.buffer, options.offset + w * tileAreaBytes(workers), workers));
      helpers = areas.map((area) => createHelperState(area, (name, args) => runTile(memory, name, args)));
    }
    return areas;
  };
  // tile function names are few: each encoded once
  const encoder = new TextEncoder();
  const encoded = new Map<string, Uint8Array>();
  const encode = (name: string): Uint8Array => {
    let bytes = encoded.get(name);
    if (!bytes) {
      bytes = encoder.encode(name);
      encoded.set(name, bytes);
    }
    return bytes;
  };
  let generation = 0;

  return {
    runnerFor(self) {
      return {
        threads: workers,
        run(tileFunction, tiles) {
          const area = areasNow()[self] as Area;
          const argCount = tiles[0]?.length ?? 0;
          const name = encode(tileFunction);
          const fits = name.length <= NAME_BYTES && tiles.length * argCount <= ARG_SLOTS && tiles.every((t) => t.length === argCount);
          if (!fits || tiles.length < 2 || workers < 2) {
            for (const t of tiles) runTile(memory, tileFunction, t);
            return;
          }
          const { words } = area;
          area.name.set(name);
          for (let i = 0; i < tiles.length; i++) area.args.set(tiles[i] as readonly number[], i * argCount);
          Atomics.store(words, W.count, tiles.length);
          Atomics.store(words, W.argCount, argCount);
          Atomics.store(words, W.nameLength, name.length);
          Atomics.store(words, W.done, 0);
          Atomics.store(words, W.error, 0);
          if (options.helped) area.stats.fill(0);
          generation = (generation % GENERATIONS) + 1;
          // publishing the claim word opens the job
          Atomics.store(words, W.claim, generation << TILE_BITS);
          options.wake();
          // the owner runs its share from the caller's arrays
          drain(area, generation, (tile) => runTile(memory, tileFunction, tiles[tile] as readonly number[]));
          for (let done = Atomics.load(words, W.done); done < tiles.length; done = Atomics.load(words, W.done))
            spinThenWait(words, W.done, done);
          // every tile is done, so no helper holds one: closing the claim word frees the area
          Atomics.store(words, W.claim, 0);
          if (options.helped) {
            const helpers: HelperTiles[] = [];
            for (let w = 0; w < workers; w++) {
              const tiles = area.stats[w * STAT_WORDS] as number;
              if (w !== self && tiles > 0)
                helpers.push({
                  worker: w,
                  tiles,
                  start: area.stats[w * STAT_WORDS + 1] as number,
                  end: area.stats[w * STAT_WORDS + 2] as number,
                });
            }
            if (helpers.length > 0) options.helped(tileFunction, helpers);
          }
          if (Atomics.load(words, W.error) !== 0) throw new Error(`a tile of ${tileFunction} failed on a helper thread`);
        },
      };
    },
    help(self) {
      let helped = false;
      const all = areasNow();
      for (let w = 0; w < workers; w++) {
        if (w === self) continue;
        const area = all[w] as Area;
        const { words } = area;
        const generation = Atomics.load(words, W.claim) >>> TILE_BITS;
        if (generation === 0) continue;
        drain(area, generation, helpers[w] as (tile: number) => void, options.helped ? self : undefined);
        helped = true;
      }
      return helped;
    },
  };
}

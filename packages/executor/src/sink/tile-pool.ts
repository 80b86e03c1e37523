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
 * which reads them once all tiles are done, sees every helper's share.
 */
function drain(area: Area, generation: number, run: (name: string, args: readonly number[]) => void, self?: number): boolean {
  const { words, args } = area;
  let failed = false;
  let name: string | undefined;
  let start = 0;
  for (let tile = claim(words, generation); tile >= 0; tile = claim(words, generation)) {
    // a claimed tile holds the job open: its count, name and args are this job's until it is done
    const count = Atomics.load(words, W.count);
    const argCount = Atomics.load(words, W.argCount);
    name ??= decoder.decode(area.name.slice(0, Atomics.load(words, W.nameLength)));
    if (self !== undefined && start === 0) start = nowMicros();
    try {
      run(name, Array.from(args.subarray(tile * argCount, (tile + 1) * argCount)));
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
  const areasNow = (): Area[] => {
    if (buffer !== memory.buffer) {
      buffer = memory.buffer;
      areas = Array.from({ length: workers }, (_, w) => areaAt(memory.buffer, options.offset + w * tileAreaBytes(workers), workers));
    }
    return areas;
  };
  const encoder = new TextEncoder();
  const runHere = (name: string, args: readonly number[]): void => runTile(memory, name, args);
  let generation = 0;

  return {
    runnerFor(self) {
      return {
        threads: workers,
        run(tileFunction, tiles) {
          const area = areasNow()[self] as Area;
          const argCount = tiles[0]?.length ?? 0;
          const name = encoder.encode(tileFunction);
          const fits = name.length <= NAME_BYTES && tiles.length * argCount <= ARG_SLOTS && tiles.every((t) => t.length === argCount);
          if (!fits || tiles.length < 2 || workers < 2) {
            for (const t of tiles) runHere(tileFunction, t);
            return;
          }
          const { words } = area;
          area.name.set(name);
          for (const [i, t] of tiles.entries()) area.args.set(t, i * argCount);
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
          drain(area, generation, runHere);
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
        drain(area, generation, runHere, options.helped ? self : undefined);
        helped = true;
      }
      return helped;
    },
  };
}

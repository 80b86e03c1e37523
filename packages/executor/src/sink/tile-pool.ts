import type { LinearMemory, ParallelRunnerV1 } from '@tsge/metadef';
import { spinThenWait } from './spin-wait.js';

/**
 * Intra-op parallelism for sink workers (`ParallelRunnerV1`). Each worker owns one job area in
 * shared memory; a kernel on that worker publishes tiles there (function name + numeric args),
 * rings the doorbell and takes tiles itself; idle workers wake, claim tiles with an atomic counter
 * and run them through the kernel library's tile registry. A busy pool means less help, never a wait.
 *
 * Job area (Int32 words, then the name, Float64 args and, when profiling, per worker the tiles it
 * ran of the job with the start of its first and the end of its last, in µs since the epoch):
 *   [0] generation (0: idle)  [1] tile count  [2] next tile  [3] tiles done  [4] args per tile
 *   [5] name length  [6] error flag  [7] helpers inside the job
 */
const W = { generation: 0, count: 1, next: 2, done: 3, argCount: 4, nameLength: 5, error: 6, helpers: 7 } as const;
const HEADER_WORDS = 8;
const NAME_BYTES = 64;
const ARG_SLOTS = 2048;
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
 * Claims and runs tiles of the job in `area` until none is left; returns whether one failed. With
 * `self` it counts the tiles it ran in the area's stats (written before the helper leaves the job,
 * so the owner reads them once no helper is inside).
 */
function drain(area: Area, run: (name: string, args: readonly number[]) => void, name: string, self?: number): boolean {
  const { words, args } = area;
  const count = Atomics.load(words, W.count);
  const argCount = Atomics.load(words, W.argCount);
  let failed = false;
  let ran = 0;
  const start = self === undefined ? 0 : nowMicros();
  for (;;) {
    const tile = Atomics.add(words, W.next, 1);
    if (tile >= count) break;
    ran++;
    try {
      run(name, Array.from(args.subarray(tile * argCount, (tile + 1) * argCount)));
    } catch {
      failed = true;
      Atomics.store(words, W.error, 1);
    }
    if (Atomics.add(words, W.done, 1) + 1 === count) Atomics.notify(words, W.done);
  }
  if (self !== undefined && ran > 0) {
    const at = self * STAT_WORDS;
    const stats = area.stats;
    if (stats[at] === 0) stats[at + 1] = start;
    stats[at] = (stats[at] as number) + ran;
    stats[at + 2] = nowMicros();
  }
  return failed;
}

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
  const decoder = new TextDecoder();
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
          Atomics.store(words, W.next, 0);
          Atomics.store(words, W.done, 0);
          Atomics.store(words, W.error, 0);
          if (options.helped) area.stats.fill(0);
          generation = (generation % 0x7ffffffe) + 1;
          Atomics.store(words, W.generation, generation);
          options.wake();
          drain(area, runHere, tileFunction);
          for (let done = Atomics.load(words, W.done); done < tiles.length; done = Atomics.load(words, W.done))
            spinThenWait(words, W.done, done);
          // close the job, then let helpers that looked in leave before the area is reused
          Atomics.store(words, W.generation, 0);
          for (let inside = Atomics.load(words, W.helpers); inside > 0; inside = Atomics.load(words, W.helpers))
            spinThenWait(words, W.helpers, inside);
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
        if (Atomics.load(words, W.generation) === 0) continue;
        Atomics.add(words, W.helpers, 1);
        try {
          if (Atomics.load(words, W.generation) === 0) continue;
          const name = decoder.decode(area.name.slice(0, Atomics.load(words, W.nameLength)));
          drain(area, runHere, name, options.helped ? self : undefined);
          helped = true;
        } finally {
          if (Atomics.sub(words, W.helpers, 1) === 1) Atomics.notify(words, W.helpers);
        }
      }
      return helped;
    },
  };
}

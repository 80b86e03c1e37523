import { describe, expect, it } from 'vitest';
import { createTilePool, tileAreaBytes } from './tile-pool.js';

/**
 * One thread plays both workers: the owner's first tile of each job calls `help` as worker 1, so the
 * helper's path (name and arguments read back from the shared job area, through its caches) takes
 * the job's remaining tiles.
 */
describe('tile pool', () => {
  it('runs every tile once with its own arguments, the helper reading names and argument counts that change per job', () => {
    const memory = { buffer: new SharedArrayBuffer(tileAreaBytes(2) * 2 + 64), grow: () => 0 };
    const ran: { by: string; name: string; args: number[] }[] = [];
    let helping = false;
    let pool: ReturnType<typeof createTilePool> | undefined;
    pool = createTilePool({
      memory,
      offset: 64,
      workers: 2,
      wake: () => {},
      runTile: (_memory, name, args) => {
        ran.push({ by: helping ? 'helper' : 'owner', name, args: [...args] });
        if (!helping) {
          helping = true;
          pool?.help(1);
          helping = false;
        }
      },
    });
    const runner = pool.runnerFor(0);
    const jobs: [string, number[][]][] = [
      [
        'simd.a',
        [
          [1, 2, 3],
          [4, 5, 6],
          [7, 8, 9],
        ],
      ],
      [
        'simd.longer.name',
        [
          [10.5, -1],
          [11.25, -2],
        ],
      ],
      [
        'simd.a',
        [
          [0, 0, 1],
          [0, 0, 2],
          [0, 0, 3],
          [0, 0, 4],
        ],
      ],
      [
        'é.ü',
        [
          [1e9, 2 ** 40],
          [-0.5, 3],
        ],
      ],
    ];
    for (const [name, tiles] of jobs) {
      ran.length = 0;
      runner.run(name, tiles);
      expect(ran.map((r) => r.name)).toEqual(tiles.map(() => name));
      expect(ran.map((r) => r.args).sort()).toEqual([...tiles].sort());
      // the owner took the first tile, the helper every other one
      expect(ran.filter((r) => r.by === 'helper')).toHaveLength(tiles.length - 1);
    }
  });
});

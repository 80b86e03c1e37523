import { describe, expect, it } from 'vitest';
import { agreement, benchRatios } from './agreement.js';
import { runsPerRound } from './isolated.js';

const run = (web: number, node: number, tfjs: number) => ({
  results: [
    { id: 'a', ratios: { tsgeOverWeb: web, tsgeOverNode: node, loadTsgeOverNode: 9 } },
    { id: 'b', ratios: { tsgeOverWeb: 1, tsgeOverNode: 4 } },
    { id: 'broken', error: 'x', ratios: { tsgeOverWeb: 5 } },
  ],
  tfjs: [{ id: 't', tsgeOverTfjs: tfjs }],
});

describe('bench agreement', () => {
  it('collects latency ratios and geomeans, not load ratios or failed rows', () => {
    const r = benchRatios(run(0.25, 1, 0.8));
    expect([...r.keys()].sort()).toEqual([
      'a tsge/node',
      'a tsge/web',
      'b tsge/node',
      'b tsge/web',
      'geomean tsge/node',
      'geomean tsge/web',
      't tsge/tfjs-wasm',
    ]);
    expect(r.get('geomean tsge/web')).toBeCloseTo(0.5);
    expect(r.get('geomean tsge/node')).toBeCloseTo(2);
  });
  it('measures each ratio against the mean of the runs', () => {
    const rows = agreement([benchRatios(run(0.9, 1, 0.8)), benchRatios(run(1.1, 1, 0.8)), benchRatios(run(1.0, 1, 0.8))]);
    const a = rows.find((x) => x.key === 'a tsge/web');
    expect(a?.mean).toBeCloseTo(1);
    expect(a?.deviation).toBeCloseTo(0.1);
    expect(rows.find((x) => x.key === 'a tsge/node')?.deviation).toBe(0);
  });
  it('skips a ratio missing from one run', () => {
    const partial = benchRatios({ results: [{ id: 'a', ratios: { tsgeOverWeb: 1 } }] });
    expect(agreement([benchRatios(run(1, 1, 1)), partial]).map((x) => x.key)).toEqual(['a tsge/web']);
  });
});

describe('runs per round', () => {
  it('gives fast models enough runs for a stable round median, within bounds', () => {
    expect(runsPerRound(5, 100)).toBe(5);
    expect(runsPerRound(5, 20)).toBe(20);
    expect(runsPerRound(5, 0.4)).toBe(60);
    expect(runsPerRound(5, 0)).toBe(5);
  });
});

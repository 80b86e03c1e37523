import { describe, expect, it } from 'vitest';
import { WARM_MS, extraWarmTurns, timedRuns } from './alternate.js';

describe('warm-up and timed turns', () => {
  it('warms a fast model up for about WARM_MS, at most 50 turns in all', () => {
    // 2 turns of 10 ms: 100 turns would fill WARM_MS, the cap leaves 48 more
    expect(extraWarmTurns(2, 20)).toBe(48);
    // 2 turns of 100 ms: 10 fill it
    expect(extraWarmTurns(2, 200)).toBe(Math.ceil(WARM_MS / 100) - 2);
  });
  it('adds nothing once --warmup already took WARM_MS, or when there was no turn to time', () => {
    expect(extraWarmTurns(2, 1500)).toBe(0);
    expect(extraWarmTurns(0, 0)).toBe(0);
  });
  it('times at least --runs turns, more for fast models, at most 100', () => {
    expect(timedRuns(5, 500, 3, 20)).toBe(5);
    expect(timedRuns(5, 10, 3, 20)).toBe(28);
    expect(timedRuns(5, 0.1, 3, 0)).toBe(100);
  });
});

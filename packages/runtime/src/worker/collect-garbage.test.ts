import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { collectGarbage } from './collect-garbage.js';

describe('collectGarbage', () => {
  it('collects without exposing gc to contexts created afterwards', () => {
    const exposed = typeof (globalThis as { gc?: unknown }).gc === 'function';
    collectGarbage();
    collectGarbage();
    // a process started with --expose-gc keeps it; any other sees no gc it did not ask for
    expect(runInNewContext('typeof gc')).toBe(exposed ? 'function' : 'undefined');
  });
});

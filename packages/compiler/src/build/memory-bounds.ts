/**
 * Memory figures computed without the planner, from lifetimes alone: the lower bound is the
 * largest total size of buffers live at one step of the execution order (no arena can be smaller);
 * no-reuse is the sum of all sizes.
 */
export interface Lifetime {
  readonly size: number;
  readonly first: number;
  readonly last: number;
  readonly pinned: boolean;
}

export function memoryBounds(lifetimes: readonly Lifetime[], steps: number): { lowerBoundBytes: number; noReuseBytes: number } {
  const delta = new Float64Array(steps + 2);
  let pinned = 0;
  let noReuseBytes = 0;
  for (const t of lifetimes) {
    noReuseBytes += t.size;
    if (t.pinned) {
      pinned += t.size;
      continue;
    }
    const first = Math.max(0, t.first);
    const last = Math.min(steps, Math.max(first, t.last));
    delta[first] = (delta[first] as number) + t.size;
    delta[last + 1] = (delta[last + 1] as number) - t.size;
  }
  let live = 0;
  let peak = 0;
  for (let i = 0; i <= steps; i++) {
    live += delta[i] as number;
    if (live > peak) peak = live;
  }
  return { lowerBoundBytes: peak + pinned, noReuseBytes };
}

/**
 * Why `tiles` do not cover the box [0, bounds[0]) × [0, bounds[1]) × … exactly once; undefined when
 * they do. Each tile is a [lo, hi) pair per axis. Recorded kernel plans (conv, matmul, pool) are
 * checked with it before their tiles run, so a plan from a file never writes outside its output
 * nor leaves part of it unwritten.
 */
export function tileCoverage(bounds: readonly number[], tiles: readonly (readonly number[])[]): string | undefined {
  const axes = bounds.length;
  const cuts = bounds.map(() => new Set<number>());
  for (const t of tiles) {
    if (t.length !== 2 * axes) return `tile [${t}] does not have ${2 * axes} ints`;
    for (let a = 0; a < axes; a++) {
      const lo = t[2 * a] as number;
      const hi = t[2 * a + 1] as number;
      if (!Number.isInteger(lo) || !Number.isInteger(hi) || lo < 0 || hi > (bounds[a] as number) || lo >= hi)
        return `tile [${t}] is outside [0, ${bounds[a]}) on axis ${a}`;
      cuts[a]?.add(lo).add(hi);
    }
  }
  // each cell of the grid the tile edges make is covered once
  const edges = cuts.map((c, a) =>
    [0, ...[...c].sort((x, y) => x - y), bounds[a] as number].filter((v, i, all) => i === 0 || v !== all[i - 1]),
  );
  const sizes = edges.map((e) => e.length - 1);
  const cells = new Uint8Array(sizes.reduce((n, s) => n * s, 1));
  const index = edges.map((e) => new Map(e.map((v, i) => [v, i])));
  for (const t of tiles) {
    // the tile's cells: a box of cell indices, walked like an odometer
    const lo = index.map((m, a) => m.get(t[2 * a] as number) as number);
    const hi = index.map((m, a) => m.get(t[2 * a + 1] as number) as number);
    const at = [...lo];
    for (;;) {
      let c = 0;
      for (let a = 0; a < axes; a++) c = c * (sizes[a] as number) + (at[a] as number);
      if (cells[c]) return `tiles overlap at tile [${t}]`;
      cells[c] = 1;
      let a = axes - 1;
      for (; a >= 0; a--) {
        at[a] = (at[a] as number) + 1;
        if (at[a] !== hi[a]) break;
        at[a] = lo[a] as number;
      }
      if (a < 0) break;
    }
  }
  return cells.every((c) => c === 1) ? undefined : 'tiles leave part of the output uncovered';
}

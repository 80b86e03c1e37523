import type { TsgeError } from '@tsge/metadef';

/**
 * The int layout every recorded kernel plan shares: [version, path, threads, …extra, tile count,
 * then `tileInts` ints per tile]. `head` counts the ints before the tiles (the count is the last).
 */
export interface PlanLayout {
  readonly version: number;
  readonly head: number;
  readonly paths: number;
  readonly tileInts: number;
}

/** A plan's ints from its path, threads, extra head ints and tiles. */
export function encodePlan(
  layout: PlanLayout,
  path: number,
  threads: number,
  extra: readonly number[],
  tiles: readonly (readonly number[])[],
): number[] {
  return [layout.version, path, threads, ...extra, tiles.length, ...tiles.flat()];
}

/** The head and tiles of recorded plan ints, or `bad`'s error when they do not have the layout's form. */
export function decodePlan(
  layout: PlanLayout,
  ints: readonly number[],
  bad: (reason: string) => TsgeError,
): { path: number; threads: number; extra: number[]; tiles: number[][] } {
  const { version, head, paths, tileInts } = layout;
  if (ints.length < head || ints[0] !== version)
    throw bad(`expected version ${version} with a ${head}-int head, got [${ints.slice(0, head)}]`);
  const path = ints[1] as number;
  if (!Number.isInteger(path) || path < 0 || path >= paths) throw bad(`unknown path ${path}`);
  const count = ints[head - 1] as number;
  if (!Number.isInteger(count) || count < 0 || ints.length !== head + tileInts * count)
    throw bad(`${count} tiles need ${head + tileInts * count} ints, got ${ints.length}`);
  const tiles: number[][] = [];
  for (let i = head; i < ints.length; i += tileInts) tiles.push(ints.slice(i, i + tileInts) as number[]);
  return { path, threads: ints[2] as number, extra: ints.slice(3, head - 1) as number[], tiles };
}

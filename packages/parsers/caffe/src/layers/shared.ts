import type { BlobRef, LayerContext } from '../convert/context.js';

/** A layer converter: adds canonical ops for one layer and returns one blob per top. */
export type LayerConverter = (ctx: LayerContext) => readonly (BlobRef | undefined)[];

/** Whether a message has the field set (decoded and text messages both set own properties). */
export function has(message: object | null | undefined, field: string): boolean {
  return message != null && Object.hasOwn(message, field) && (message as Record<string, unknown>)[field] != null;
}

/** Caffe's CanonicalAxisIndex: a possibly negative axis in [-rank, rank). */
export function canonicalAxis(ctx: LayerContext, axis: number, rank: number, what = 'axis'): number {
  if (!(axis >= -rank && axis < rank)) ctx.fail(`${what} ${axis} is out of range for a blob of rank ${rank}`);
  return axis < 0 ? axis + rank : axis;
}

export const product = (dims: readonly number[]): number => dims.reduce((a, b) => a * b, 1);

/** A number from a field that may hold a Long (int64 from a caffemodel). */
export function num(value: unknown, fallback: number): number {
  if (value === null || value === undefined) return fallback;
  return Number(value);
}

/** Reshapes a per-axis parameter of `count` values so it broadcasts from `axis` of a rank-`rank` blob. */
export function broadcastDims(dims: readonly number[], axis: number, rank: number): number[] {
  return [...dims, ...new Array(Math.max(0, rank - axis - dims.length)).fill(1)];
}

export function same(ctx: LayerContext): readonly BlobRef[] {
  const x = ctx.input(0);
  return ctx.layer.tops.map(() => x);
}

/**
 * A dim is a non-negative number, -1 (unknown), or a symbol name such as 'batch'.
 * A shape is a list of dims; `[]` is a scalar and `[-2]` means the rank is unknown.
 * Ranges of unknown or symbolic dims live in `TensorDesc.shapeRange`, as in GE.
 */
export type Dim = number | string;
export type Shape = readonly Dim[];

export const UNKNOWN_DIM = -1;
export const UNKNOWN_RANK_SHAPE: Shape = Object.freeze([-2]);

export function isUnknownRank(shape: Shape): boolean {
  return shape.length === 1 && shape[0] === -2;
}
export function isStaticDim(dim: Dim): dim is number {
  return typeof dim === 'number' && dim >= 0;
}
/** True when every dim is a known number. */
export function isStaticShape(shape: Shape): shape is readonly number[] {
  for (const d of shape) if (typeof d !== 'number' || d < 0) return false;
  return true;
}
/** Number of elements; undefined when any dim is not static. */
export function shapeSize(shape: Shape): number | undefined {
  let n = 1;
  for (const d of shape) {
    if (typeof d !== 'number' || d < 0) return undefined;
    n *= d;
  }
  return n;
}
/** Element count of a static shape (dims as numbers). */
export function elementCount(dims: readonly number[]): number {
  let n = 1;
  for (const d of dims) n *= d;
  return n;
}
export function shapeToString(shape: Shape): string {
  if (isUnknownRank(shape)) return '[*]';
  return `[${shape.join(',')}]`;
}
export function shapesEqual(a: Shape, b: Shape): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
/** Row-major strides of a static shape. */
export function stridesOf(dims: readonly number[]): number[] {
  const strides = new Array<number>(dims.length);
  let s = 1;
  for (let i = dims.length - 1; i >= 0; i--) {
    strides[i] = s;
    s *= dims[i] as number;
  }
  return strides;
}
/**
 * Numpy-style broadcast of shapes. Unknown and symbolic dims are kept when they can only
 * be themselves; returns undefined when two static dims conflict.
 */
export function broadcastShapes(...shapes: readonly Shape[]): Shape | undefined {
  if (shapes.some(isUnknownRank)) return UNKNOWN_RANK_SHAPE;
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out: Dim[] = [];
  for (let i = 0; i < rank; i++) {
    let dim: Dim = 1;
    for (const s of shapes) {
      const d = s[s.length - rank + i];
      if (d === undefined || d === 1) continue;
      if (dim === 1) dim = d;
      else if (dim !== d) {
        if (typeof dim === 'number' && dim >= 0 && typeof d === 'number' && d >= 0) return undefined;
        // one side unknown/symbolic: a known dim > 1 wins, otherwise unknown
        if (typeof d === 'number' && d > 1) dim = d;
        else if (!(typeof dim === 'number' && dim > 1)) dim = UNKNOWN_DIM;
      }
    }
    out.push(dim);
  }
  return out;
}

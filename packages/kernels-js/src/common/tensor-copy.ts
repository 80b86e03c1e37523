// Dtype-agnostic element movement for the tensor group: every movement op (Transpose, Slice,
// Expand, Tile, Pad, DepthToSpace, ...) reduces to "output coordinate → input offset" along each
// axis, so one odometer loop serves all of them and all dtypes (typed arrays and string[] alike).
import type { HostTensor, TensorStorage } from '@tsge/metadef';

/** Element storage seen as plain indexable slots (the caller keeps source and target dtypes equal). */
type Slots = { [index: number]: unknown; readonly length: number };

/** Marks "no input element here" in an axis table (Pad's constant area); any sum with it is negative. */
export const OUTSIDE = -(2 ** 45);

/** Copies `count` elements from `source[sourceStart..]` to `target[targetStart..]`. */
export function copyBlock(source: TensorStorage, sourceStart: number, target: TensorStorage, targetStart: number, count: number): void {
  if (count <= 0) return;
  // short runs: a loop beats allocating a subarray view
  if (count < 16 || Array.isArray(source) || Array.isArray(target)) {
    const s = source as Slots;
    const t = target as unknown as { [index: number]: unknown };
    for (let i = 0; i < count; i++) t[targetStart + i] = s[sourceStart + i];
    return;
  }
  // same typed-array class: a memmove
  (target as Float64Array).set((source as Float64Array).subarray(sourceStart, sourceStart + count), targetStart);
}

/** Whether two storages are the same memory (an in-place kernel then need not copy). */
export function sameStorage(a: TensorStorage, b: TensorStorage): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) return false;
  return a.buffer === b.buffer && a.byteOffset === b.byteOffset && a.length === b.length;
}

/** Writes `value` (one element of the target's storage kind) to every slot in [start, end). */
export function fillSlots(target: TensorStorage, value: unknown, start = 0, end = target.length): void {
  if (Array.isArray(target)) {
    for (let i = start; i < end; i++) target[i] = value as string;
    return;
  }
  (target as unknown as { fill(v: unknown, s: number, e: number): void }).fill(value, start, end);
}

/** Element i of a tensor's storage, unconverted (raw float16 bits, bigint, string...). */
export function rawElement(t: HostTensor, index: number): unknown {
  return (t.data as Slots)[index];
}

/**
 * The storage as unsigned words of its element width, so element copies run on at most three
 * array classes (keeps the copy loop's element access polymorphic rather than megamorphic).
 * 8-byte elements become two 32-bit lanes (`lanes` = 2); strings stay as they are.
 */
function wordView(storage: TensorStorage): { view: TensorStorage; lanes: number } {
  if (Array.isArray(storage)) return { view: storage, lanes: 1 };
  const { buffer, byteOffset, byteLength, BYTES_PER_ELEMENT: width } = storage as Float64Array;
  if (width === 1) return { view: new Uint8Array(buffer, byteOffset, byteLength), lanes: 1 };
  if (width === 2) return { view: new Uint16Array(buffer, byteOffset, byteLength / 2), lanes: 1 };
  return { view: new Uint32Array(buffer, byteOffset, byteLength / 4), lanes: width / 4 };
}

/**
 * target[o] = source[Σ_d tables[d][coord_d]] over all output coordinates in row-major order;
 * a negative sum (an OUTSIDE entry) writes `fill` instead.
 */
export function copyByAxisTables(
  source: TensorStorage,
  target: TensorStorage,
  outDims: readonly number[],
  tables: readonly Float64Array[],
  fill?: unknown,
): void {
  if (fill !== undefined) {
    copyTables(source, target, outDims, tables, fill);
    return;
  }
  const from = wordView(source);
  const to = wordView(target);
  if (from.lanes === 1) {
    copyTables(from.view, to.view, outDims, tables);
    return;
  }
  // wide elements: every offset scales by the lane count and a trailing lane axis is added
  const lanes = from.lanes;
  const scaled: Float64Array[] = tables.map((t) => Float64Array.from(t, (v) => v * lanes));
  scaled.push(linearTable(lanes, 1));
  copyTables(from.view, to.view, [...outDims, lanes], scaled);
}

function copyTables(
  source: TensorStorage,
  target: TensorStorage,
  outDims: readonly number[],
  tables: readonly Float64Array[],
  fill?: unknown,
): void {
  const rank = outDims.length;
  let total = 1;
  for (const d of outDims) total *= d;
  if (total === 0) return;
  const src = source as Slots;
  const dst = target as unknown as { [index: number]: unknown };
  if (rank === 0) {
    dst[0] = src[0];
    return;
  }
  const coord = new Int32Array(rank);
  // partial[d] = contribution of axes < d
  const partial = new Float64Array(rank);
  for (let d = 1; d < rank; d++) partial[d] = (partial[d - 1] as number) + ((tables[d - 1] as Float64Array)[0] as number);
  const last = tables[rank - 1] as Float64Array;
  const lastSize = outDims[rank - 1] as number;
  // rows that read a contiguous input run are block copies (Transpose keeping the last axis, Slice, Concat-like)
  const first = last[0] as number;
  const step = lastSize > 1 ? (last[1] as number) - first : 1;
  let linear = first >= 0 && first + step * (lastSize - 1) >= 0;
  for (let j = 1; j < lastSize && linear; j++) linear = last[j] === first + j * step;
  const contiguous = linear && step === 1;
  let o = 0;
  while (o < total) {
    const base = partial[rank - 1] as number;
    if (contiguous && base >= 0) {
      copyBlock(source, base + first, target, o, lastSize);
      o += lastSize;
    } else if (linear && base >= 0) {
      // strided row (Transpose moving the last axis, Slice with steps, Expand's broadcast)
      let s = base + first;
      for (let j = 0; j < lastSize; j++) {
        dst[o++] = src[s];
        s += step;
      }
    } else {
      for (let j = 0; j < lastSize; j++) {
        const s = base + (last[j] as number);
        dst[o++] = s < 0 ? fill : src[s];
      }
    }
    // advance the odometer over axes rank-2..0
    let d = rank - 2;
    while (d >= 0) {
      const c = (coord[d] as number) + 1;
      if (c < (outDims[d] as number)) {
        coord[d] = c;
        break;
      }
      coord[d] = 0;
      d--;
    }
    if (d < 0) break;
    for (let e = d + 1; e < rank; e++)
      partial[e] = (partial[e - 1] as number) + ((tables[e - 1] as Float64Array)[coord[e - 1] as number] as number);
  }
}

/** Axis table `coord → coord * stride + offset`. */
export function linearTable(size: number, stride: number, offset = 0): Float64Array {
  const table = new Float64Array(size);
  for (let i = 0; i < size; i++) table[i] = offset + i * stride;
  return table;
}

/** Row-major strides. */
export function rowMajorStrides(dims: readonly number[]): number[] {
  const strides = new Array<number>(dims.length);
  let s = 1;
  for (let i = dims.length - 1; i >= 0; i--) {
    strides[i] = s;
    s *= dims[i] as number;
  }
  return strides;
}

/** Permutes `source` (of `inDims`) so output axis d is input axis perm[d]. */
export function transposeInto(source: TensorStorage, target: TensorStorage, inDims: readonly number[], perm: readonly number[]): number[] {
  const strides = rowMajorStrides(inDims);
  const outDims = perm.map((p) => inDims[p] as number);
  const tables = perm.map((p, d) => linearTable(outDims[d] as number, strides[p] as number));
  copyByAxisTables(source, target, outDims, tables);
  return outDims;
}

export function product(dims: readonly number[], from = 0, to = dims.length): number {
  let n = 1;
  for (let i = from; i < to; i++) n *= dims[i] as number;
  return n;
}

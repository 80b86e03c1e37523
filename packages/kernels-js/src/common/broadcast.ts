/** Numpy broadcasting on static dims. */

/** Output dims of broadcasting `shapes`; throws on a conflict. */
export function broadcastDims(...shapes: readonly (readonly number[])[]): number[] {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out = new Array<number>(rank).fill(1);
  for (const s of shapes) {
    const off = rank - s.length;
    for (let i = 0; i < s.length; i++) {
      const d = s[i] as number;
      const o = out[off + i] as number;
      if (d === o || d === 1) continue;
      if (o === 1) out[off + i] = d;
      else throw new RangeError(`cannot broadcast [${shapes.map((x) => x.join(',')).join('] and [')}]`);
    }
  }
  return out;
}

/**
 * For each output element, the flat index into an input of `inDims` broadcast to `outDims`.
 * Returned as an Int32Array (inputs above 2^31 elements are out of scope for host kernels).
 */
export function broadcastIndexMap(inDims: readonly number[], outDims: readonly number[]): Int32Array {
  const rank = outDims.length;
  let total = 1;
  for (const d of outDims) total *= d;
  const map = new Int32Array(total);
  const off = rank - inDims.length;
  // input strides aligned to output rank; 0 where broadcast
  const strides = new Array<number>(rank).fill(0);
  let s = 1;
  for (let i = inDims.length - 1; i >= 0; i--) {
    strides[off + i] = inDims[i] === 1 ? 0 : s;
    s *= inDims[i] as number;
  }
  const idx = new Array<number>(rank).fill(0);
  let pos = 0;
  for (let k = 0; k < total; k++) {
    map[k] = pos;
    for (let d = rank - 1; d >= 0; d--) {
      idx[d]++;
      pos += strides[d] as number;
      if ((idx[d] as number) < (outDims[d] as number)) break;
      pos -= (strides[d] as number) * (outDims[d] as number);
      idx[d] = 0;
    }
  }
  return map;
}

/** Whether dims are equal element by element. */
export function sameDims(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Axis handling shared by reductions (ReduceSum..., ArgMax, Hardmax, CumSum...). */

/** Input dims with reduced axes set to 1 (keepdims) or removed. */
export function reduceDims(dims: readonly number[], axes: readonly number[], keepdims: boolean): number[] {
  const out: number[] = [];
  dims.forEach((d, i) => {
    if (!axes.includes(i)) out.push(d);
    else if (keepdims) out.push(1);
  });
  return out;
}

// Slicing one index out of an axis and stacking tensors along a new axis (Scan, Loop, sequences).
import { type HostTensor, createTensor } from '@tsge/metadef';
import { copyBlock, product } from './tensor-copy.js';

/** The sub-tensor at `index` along `axis`, that axis removed (a fresh tensor). */
export function takeAlongAxis(t: HostTensor, axis: number, index: number): HostTensor {
  const dims = [...t.dims];
  const axisDim = dims[axis] as number;
  dims.splice(axis, 1);
  const out = createTensor(t.type, dims);
  const outer = product(t.dims, 0, axis);
  const inner = product(t.dims, axis + 1);
  for (let o = 0; o < outer; o++) copyBlock(t.data, (o * axisDim + index) * inner, out.data, o * inner, inner);
  return out;
}

/** Dims of `items` stacked at `axis` (a new axis); undefined when the items' dims differ. */
export function stackedDims(items: readonly HostTensor[], axis: number): number[] | undefined {
  const first = items[0];
  if (!first) return undefined;
  for (const t of items) if (t.dims.length !== first.dims.length || t.dims.some((d, i) => d !== first.dims[i])) return undefined;
  const dims = [...first.dims];
  dims.splice(axis, 0, items.length);
  return dims;
}

/** Writes `items` (equal dims) stacked along a new `axis` into `target`. */
export function stackInto(items: readonly HostTensor[], axis: number, target: HostTensor): void {
  const first = items[0];
  if (!first) return;
  const outer = product(first.dims, 0, axis);
  const inner = product(first.dims, axis);
  const n = items.length;
  items.forEach((t, p) => {
    for (let o = 0; o < outer; o++) copyBlock(t.data, o * inner, target.data, (o * n + p) * inner, inner);
  });
}

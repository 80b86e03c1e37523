import { type Dim, isStaticDim } from '../types/shape.js';

/**
 * The element stride of a tensor of `dims` at each dim of `out`, read right-aligned as ONNX
 * broadcasts: 0 where it has size 1 (or lacks the dim), else its row-major stride. Undefined when
 * a dim of more than one element is not the output's (a dynamic output dim never matches a static
 * one). The one broadcast rule of auto-fusion, run-time-sized layouts and their resolution.
 */
export function broadcastStrides(dims: readonly number[], out: readonly Dim[]): number[] | undefined {
  if (dims.length > out.length) return undefined;
  const strides = new Array<number>(out.length).fill(0);
  let step = 1;
  for (let i = dims.length - 1; i >= 0; i--) {
    const o = out.length - dims.length + i;
    const d = dims[i] as number;
    if (d !== 1 && out[o] !== d) return undefined;
    strides[o] = d === 1 ? 0 : step;
    step *= d;
  }
  return strides;
}

/**
 * The one stride that walks dims [from, to) of `out` together as a single run (each dim of more
 * than one element continuing the run of the ones inside it): 0 when `strides` are 0 over all of
 * them; undefined when they do not form one run, or step along a dim not known statically.
 */
export function runStride(out: readonly Dim[], strides: readonly number[], from: number, to: number): number | undefined {
  if (strides.slice(from, to).every((s) => s === 0)) return 0;
  let run = -1;
  let step = 1;
  for (let i = to - 1; i >= from; i--) {
    const d = out[i] as Dim;
    if (!isStaticDim(d)) return undefined;
    if (d === 1) continue;
    const s = strides[i] as number;
    if (run < 0) run = s;
    else if (s !== run * step) return undefined;
    step *= d;
  }
  return Math.max(run, 0);
}

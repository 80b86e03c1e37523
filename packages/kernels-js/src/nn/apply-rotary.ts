/** tsge::ApplyRotary: y = x·cos + rotate(x)·sin, rotating the halves of x's last axis or (interleaved) its adjacent pairs. */
import { type HostTensor, type KernelContextV1, type KernelV1, TSGE_DOMAIN } from '@tsge/metadef';
import { APPLY_ROTARY } from '@tsge/ops/kernel-support';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { floatOutput, readFloats } from '../common/nn-float-io.js';
import { defineKernel } from '../define.js';

/**
 * Element strides of `t` broadcast (unidirectionally) to `dims`: 0 along axes it repeats. Throws
 * when `t` does not broadcast to `dims` or its last axis is not `dims`' last axis.
 */
export function rotaryStrides(ctx: KernelContextV1, t: HostTensor, dims: readonly number[], name: string): number[] {
  const rank = dims.length;
  const offset = rank - t.dims.length;
  const last = t.dims[t.dims.length - 1];
  if (offset < 0 || last !== dims[rank - 1])
    throw kernelError(ctx, `${name} [${t.dims}] must broadcast to x [${dims}] with its last axis equal to x's`);
  const strides = new Array<number>(rank).fill(0);
  let stride = 1;
  for (let k = t.dims.length - 1; k >= 0; k--) {
    const d = t.dims[k] as number;
    const xd = dims[offset + k] as number;
    if (d !== xd && d !== 1) throw kernelError(ctx, `${name} [${t.dims}] does not broadcast to x [${dims}]`);
    strides[offset + k] = d === 1 ? 0 : stride;
    stride *= d;
  }
  return strides;
}

/** Offset of row `row` of `dims` (all axes but the last) in a tensor of element strides `strides`. */
export function rowOffset(row: number, dims: readonly number[], strides: readonly number[]): number {
  let offset = 0;
  let rest = row;
  for (let k = dims.length - 2; k >= 0; k--) {
    const d = dims[k] as number;
    offset += (rest % d) * (strides[k] as number);
    rest = Math.floor(rest / d);
  }
  return offset;
}

function compute(ctx: KernelContextV1): void {
  const xT = requireTensor(ctx, 0);
  const cosT = requireTensor(ctx, 1);
  const sinT = requireTensor(ctx, 2);
  const dims = xT.dims;
  const rank = dims.length;
  const width = rank === 0 ? 0 : (dims[rank - 1] as number);
  if (rank === 0 || width % 2 !== 0) throw kernelError(ctx, `the last axis of x [${dims}] must be even`);
  const cosStrides = rotaryStrides(ctx, cosT, dims, 'cos');
  const sinStrides = rotaryStrides(ctx, sinT, dims, 'sin');
  const x = readFloats(xT);
  const cos = readFloats(cosT);
  const sin = readFloats(sinT);
  const y = floatOutput(ctx, 0, dims, xT.type);
  const half = width / 2;
  const rows = width === 0 ? 0 : x.length / width;
  // the pair (a, b) of element i: a half apart, or adjacent when interleaved
  const interleaved = ctx.attrs.int('interleaved', 0) !== 0;
  if (interleaved) {
    for (let r = 0; r < rows; r++) {
      const at = r * width;
      const c = rowOffset(r, dims, cosStrides);
      const s = rowOffset(r, dims, sinStrides);
      for (let i = 0; i < width; i += 2) {
        const x1 = x[at + i] as number;
        const x2 = x[at + i + 1] as number;
        y.data[at + i] = x1 * (cos[c + i] as number) - x2 * (sin[s + i] as number);
        y.data[at + i + 1] = x2 * (cos[c + i + 1] as number) + x1 * (sin[s + i + 1] as number);
      }
    }
    y.commit();
    return;
  }
  for (let r = 0; r < rows; r++) {
    const at = r * width;
    const c = rowOffset(r, dims, cosStrides);
    const s = rowOffset(r, dims, sinStrides);
    for (let i = 0; i < half; i++) {
      const x1 = x[at + i] as number;
      const x2 = x[at + half + i] as number;
      y.data[at + i] = x1 * (cos[c + i] as number) - x2 * (sin[s + i] as number);
      y.data[at + half + i] = x2 * (cos[c + half + i] as number) + x1 * (sin[s + half + i] as number);
    }
  }
  y.commit();
}

export const applyRotaryKernel: KernelV1 = defineKernel({ opType: APPLY_ROTARY, domain: TSGE_DOMAIN, compute });

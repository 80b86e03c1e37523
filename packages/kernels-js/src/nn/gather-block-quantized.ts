/**
 * com.microsoft GatherBlockQuantized reference kernel: gathers along gather_axis and dequantizes
 * each element with the scale (and zero point) of its block along quantize_axis.
 */
import type { KernelContextV1, KernelV1 } from '@tsge/metadef';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { floatOutput, hasInput, readFloats } from '../common/nn-float-io.js';
import { defineKernel } from '../define.js';
import { packedValue } from './matmul-nbits.js';

function axisOf(ctx: KernelContextV1, name: string, fallback: number, rank: number): number {
  const v = ctx.attrs.int(name, fallback);
  const a = v < 0 ? v + rank : v;
  if (a < 0 || a >= rank) throw kernelError(ctx, `${name} ${v} is out of range for rank ${rank}`);
  return a;
}

function compute(ctx: KernelContextV1): void {
  const data = requireTensor(ctx, 0);
  const indicesT = requireTensor(ctx, 1);
  const scalesT = requireTensor(ctx, 2);
  const bits = ctx.attrs.int('bits', 4);
  const blockSize = ctx.attrs.int('block_size', 128);
  if (data.type !== 'uint8') throw kernelError(ctx, `data must be uint8, got ${data.type}`);
  if (bits !== 4 && bits !== 8) throw kernelError(ctx, `bits must be 4 or 8, got ${bits}`);
  const rank = data.dims.length;
  const gatherAxis = axisOf(ctx, 'gather_axis', 0, rank);
  const quantizeAxis = axisOf(ctx, 'quantize_axis', 1, rank);
  const perByte = 8 / bits;
  if (gatherAxis !== 0 || quantizeAxis !== rank - 1) throw kernelError(ctx, 'uint8 data needs gather_axis 0 and quantize_axis last');
  const dims = data.dims.map((d, i) => (i === rank - 1 ? d * perByte : d));
  const qDim = dims[quantizeAxis] as number;
  const blocks = Math.ceil(qDim / blockSize);
  const scaleDims = dims.map((d, i) => (i === quantizeAxis ? blocks : d));
  if (scalesT.dims.join() !== scaleDims.join()) throw kernelError(ctx, `scales must be [${scaleDims}], got [${scalesT.dims}]`);
  const scales = readFloats(scalesT);
  let zeros: Uint8Array | undefined;
  if (hasInput(ctx, 3)) {
    const z = requireTensor(ctx, 3);
    const want = scaleDims.map((d, i) => (i === rank - 1 ? Math.ceil(d / perByte) : d));
    if (z.type !== 'uint8' || z.dims.join() !== want.join()) throw kernelError(ctx, `zero_points must be uint8 [${want}], got [${z.dims}]`);
    zeros = z.data as Uint8Array;
  }
  const fallbackZero = 1 << (bits - 1);
  const axisLen = dims[gatherAxis] as number;
  const indices = Array.from(indicesT.data as ArrayLike<number | bigint>, Number);
  for (const i of indices) if (i < -axisLen || i >= axisLen) throw kernelError(ctx, `index ${i} is outside [-${axisLen}, ${axisLen})`);
  const outer = dims.slice(0, gatherAxis).reduce((x, y) => x * y, 1);
  const inner = dims.slice(gatherAxis + 1).reduce((x, y) => x * y, 1);
  // strides of the logical data and of scales, to find each element's block
  const strides = dims.map((_, i) => dims.slice(i + 1).reduce((x, y) => x * y, 1));
  const scaleStrides = scaleDims.map((_, i) => scaleDims.slice(i + 1).reduce((x, y) => x * y, 1));
  const zeroRow = Math.ceil((scaleDims[rank - 1] as number) / perByte);
  const out = floatOutput(ctx, 0, [...dims.slice(0, gatherAxis), ...indicesT.dims, ...dims.slice(gatherAxis + 1)], scalesT.type);
  const bytes = data.data as Uint8Array;
  let o = 0;
  for (let p = 0; p < outer; p++)
    for (const raw of indices) {
      const idx = raw < 0 ? raw + axisLen : raw;
      for (let q = 0; q < inner; q++) {
        const flat = (p * axisLen + idx) * inner + q;
        let scaleAt = 0;
        let rest = flat;
        for (let d = 0; d < rank; d++) {
          const c = Math.floor(rest / (strides[d] as number));
          rest -= c * (strides[d] as number);
          scaleAt += (d === quantizeAxis ? Math.floor(c / blockSize) : c) * (scaleStrides[d] as number);
        }
        const value = packedValue(bytes, 0, flat, bits);
        let zero = fallbackZero;
        if (zeros) {
          const lastLen = scaleDims[rank - 1] as number;
          const zRow = Math.floor(scaleAt / lastLen);
          zero = packedValue(zeros, zRow * zeroRow, scaleAt % lastLen, bits);
        }
        out.data[o++] = (value - zero) * (scales[scaleAt] as number);
      }
    }
  out.commit();
}

export const gatherBlockQuantizedKernels: readonly KernelV1[] = [
  defineKernel({ opType: 'GatherBlockQuantized', domain: 'com.microsoft', compute }),
];

/**
 * DeformConv (2-D): each kernel tap samples X bilinearly at its offset position (zero outside),
 * optionally scaled by a mask, then the sampled columns go through the same GEMM as Conv.
 */
import type { KernelV1 } from '@tsge/metadef';
import { readWindowAttrs } from '@tsge/ops/kernel-support';
import { windowGeometry } from '../common/nn-conv-geometry.js';
import { floatOutput, hasInput, readFloats } from '../common/nn-float-io.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { gemmAccumulate } from '../common/nn-gemm.js';
import { defineKernel } from '../define.js';

function bilinear(plane: ArrayLike<number>, base: number, height: number, width: number, y: number, x: number): number {
  if (y <= -1 || y >= height || x <= -1 || x >= width) return 0;
  const y0 = Math.floor(y);
  const x0 = Math.floor(x);
  const ly = y - y0;
  const lx = x - x0;
  const at = (yy: number, xx: number) => (yy >= 0 && yy < height && xx >= 0 && xx < width ? (plane[base + yy * width + xx] as number) : 0);
  return (1 - ly) * (1 - lx) * at(y0, x0) + (1 - ly) * lx * at(y0, x0 + 1) + ly * (1 - lx) * at(y0 + 1, x0) + ly * lx * at(y0 + 1, x0 + 1);
}

export const deformConvKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'DeformConv',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const w = requireTensor(ctx, 1);
      const offsetT = requireTensor(ctx, 2);
      if (x.dims.length !== 4 || w.dims.length !== 4) throw kernelError(ctx, 'only 2-D DeformConv is supported (X and W must be 4-D)');
      const [batch, channels, height, width] = x.dims as [number, number, number, number];
      const outChannels = w.dims[0] as number;
      const group = ctx.attrs.int('group', 1);
      const offsetGroups = ctx.attrs.int('offset_group', 1);
      const kernel = ctx.attrs.ints('kernel_shape', w.dims.slice(2));
      const [kh, kw] = kernel as [number, number];
      const g = windowGeometry(readWindowAttrs(ctx.attrs, kernel), [height, width]);
      const [oh, ow] = g.outDims as [number, number];
      const cg = channels / group;
      const mg = outChannels / group;
      const kSize = kh * kw;
      const outSize = oh * ow;
      if (!Number.isInteger(cg) || !Number.isInteger(mg) || w.dims[1] !== cg || channels % offsetGroups !== 0)
        throw kernelError(ctx, `channels do not match: X [${x.dims}], W [${w.dims}]`);
      if (offsetT.dims[1] !== offsetGroups * 2 * kSize || offsetT.dims[2] !== oh || offsetT.dims[3] !== ow)
        throw kernelError(ctx, `offset [${offsetT.dims}] must be [N, ${offsetGroups * 2 * kSize}, ${oh}, ${ow}]`);
      const xs = readFloats(x);
      const ws = readFloats(w);
      const offsets = readFloats(offsetT);
      const bias = hasInput(ctx, 3) ? readFloats(requireTensor(ctx, 3)) : undefined;
      const mask = hasInput(ctx, 4) ? readFloats(requireTensor(ctx, 4)) : undefined;
      const channelsPerOffset = channels / offsetGroups;
      const [sh, sw] = g.strides as [number, number];
      const [dh, dw] = g.dilations as [number, number];
      const [padH, padW] = g.padsBegin as [number, number];
      const out = floatOutput(ctx, 0, [batch, outChannels, oh, ow], x.type);
      const col = new Float64Array(cg * kSize * outSize);
      const wd = ws instanceof Float64Array ? ws : Float64Array.from(ws);
      const y = new Float64Array(out.data.length);
      for (let n = 0; n < batch; n++)
        for (let grp = 0; grp < group; grp++) {
          for (let c = 0; c < cg; c++) {
            const channel = grp * cg + c;
            const og = Math.floor(channel / channelsPerOffset);
            const plane = (n * channels + channel) * height * width;
            for (let i = 0; i < kh; i++)
              for (let j = 0; j < kw; j++) {
                const k = i * kw + j;
                const offH = ((n * offsetGroups + og) * 2 * kSize + 2 * k) * outSize;
                const offW = offH + outSize;
                const maskBase = ((n * offsetGroups + og) * kSize + k) * outSize;
                const row = (c * kSize + k) * outSize;
                for (let p = 0; p < oh; p++)
                  for (let q = 0; q < ow; q++) {
                    const o = p * ow + q;
                    const yy = p * sh - padH + i * dh + (offsets[offH + o] as number);
                    const xx = q * sw - padW + j * dw + (offsets[offW + o] as number);
                    let v = bilinear(xs, plane, height, width, yy, xx);
                    if (mask) v *= mask[maskBase + o] as number;
                    col[row + o] = v;
                  }
              }
          }
          const yBase = (n * outChannels + grp * mg) * outSize;
          for (let m = 0; m < mg; m++) y.fill(bias ? (bias[grp * mg + m] as number) : 0, yBase + m * outSize, yBase + (m + 1) * outSize);
          gemmAccumulate(wd, grp * mg * cg * kSize, col, 0, y, yBase, { m: mg, k: cg * kSize, n: outSize });
        }
      out.data.set(y);
      out.commit();
    },
  }),
];

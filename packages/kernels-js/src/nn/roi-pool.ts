/** RoiAlign (avg/max, half_pixel or output_half_pixel) and MaxRoiPool over NCHW feature maps. */
import type { KernelV1 } from '@tsge/metadef';
import { floatOutput, readFloats } from '../common/nn-float-io.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

export const roiPoolKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'RoiAlign',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const roisT = requireTensor(ctx, 1);
      const batchT = requireTensor(ctx, 2);
      if (x.dims.length !== 4 || roisT.dims.length !== 2 || roisT.dims[1] !== 4)
        throw kernelError(ctx, `X [${x.dims}] must be 4-D and rois [${roisT.dims}] [num, 4]`);
      const [batch, channels, height, width] = x.dims as [number, number, number, number];
      const num = roisT.dims[0] as number;
      const oh = ctx.attrs.int('output_height', 1);
      const ow = ctx.attrs.int('output_width', 1);
      const ratio = ctx.attrs.int('sampling_ratio', 0);
      const scale = ctx.attrs.float('spatial_scale', 1);
      const halfPixel = ctx.attrs.string('coordinate_transformation_mode', 'half_pixel') === 'half_pixel';
      const maxMode = ctx.attrs.string('mode', 'avg') === 'max';
      const xs = readFloats(x);
      const rois = readFloats(roisT);
      const out = floatOutput(ctx, 0, [num, channels, oh, ow], x.type);
      const offset = halfPixel ? 0.5 : 0;
      for (let r = 0; r < num; r++) {
        const b = Number(batchT.data[r]);
        if (b < 0 || b >= batch) throw kernelError(ctx, `batch index ${b} out of range`);
        const startW = (rois[r * 4] as number) * scale - offset;
        const startH = (rois[r * 4 + 1] as number) * scale - offset;
        let roiW = (rois[r * 4 + 2] as number) * scale - offset - startW;
        let roiH = (rois[r * 4 + 3] as number) * scale - offset - startH;
        if (!halfPixel) {
          roiW = Math.max(roiW, 1);
          roiH = Math.max(roiH, 1);
        }
        const binH = roiH / oh;
        const binW = roiW / ow;
        const gridH = ratio > 0 ? ratio : Math.ceil(roiH / oh);
        const gridW = ratio > 0 ? ratio : Math.ceil(roiW / ow);
        const count = Math.max(gridH * gridW, 1);
        for (let c = 0; c < channels; c++) {
          const plane = (b * channels + c) * height * width;
          for (let ph = 0; ph < oh; ph++)
            for (let pw = 0; pw < ow; pw++) {
              let acc = 0;
              let best = 0;
              let first = true;
              for (let iy = 0; iy < gridH; iy++) {
                const y = startH + ph * binH + ((iy + 0.5) * binH) / gridH;
                for (let ix = 0; ix < gridW; ix++) {
                  const xx = startW + pw * binW + ((ix + 0.5) * binW) / gridW;
                  let value = 0;
                  let peak = 0;
                  if (!(y < -1 || y > height || xx < -1 || xx > width)) {
                    const yc = Math.max(y, 0);
                    const xc = Math.max(xx, 0);
                    let yLow = Math.floor(yc);
                    let xLow = Math.floor(xc);
                    let yHigh: number;
                    let xHigh: number;
                    let yy = yc;
                    let xv = xc;
                    if (yLow >= height - 1) {
                      yHigh = yLow = height - 1;
                      yy = yLow;
                    } else yHigh = yLow + 1;
                    if (xLow >= width - 1) {
                      xHigh = xLow = width - 1;
                      xv = xLow;
                    } else xHigh = xLow + 1;
                    const ly = yy - yLow;
                    const lx = xv - xLow;
                    const hy = 1 - ly;
                    const hx = 1 - lx;
                    const v1 = hy * hx * (xs[plane + yLow * width + xLow] as number);
                    const v2 = hy * lx * (xs[plane + yLow * width + xHigh] as number);
                    const v3 = ly * hx * (xs[plane + yHigh * width + xLow] as number);
                    const v4 = ly * lx * (xs[plane + yHigh * width + xHigh] as number);
                    value = v1 + v2 + v3 + v4;
                    peak = Math.max(v1, v2, v3, v4);
                  }
                  acc += value;
                  if (first || peak > best) best = peak;
                  first = false;
                }
              }
              out.data[((r * channels + c) * oh + ph) * ow + pw] = maxMode ? best : acc / count;
            }
        }
      }
      out.commit();
    },
  }),
  defineKernel({
    opType: 'MaxRoiPool',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const roisT = requireTensor(ctx, 1);
      if (x.dims.length !== 4 || roisT.dims.length !== 2 || roisT.dims[1] !== 5)
        throw kernelError(ctx, `X [${x.dims}] must be 4-D and rois [${roisT.dims}] [num, 5]`);
      const [batch, channels, height, width] = x.dims as [number, number, number, number];
      const [ph, pw] = ctx.attrs.ints('pooled_shape') as [number, number];
      const scale = ctx.attrs.float('spatial_scale', 1);
      const num = roisT.dims[0] as number;
      const xs = readFloats(x);
      const rois = readFloats(roisT);
      const out = floatOutput(ctx, 0, [num, channels, ph, pw], x.type);
      for (let r = 0; r < num; r++) {
        const b = rois[r * 5] as number;
        if (b < 0 || b >= batch) throw kernelError(ctx, `batch index ${b} out of range`);
        const x1 = Math.round((rois[r * 5 + 1] as number) * scale);
        const y1 = Math.round((rois[r * 5 + 2] as number) * scale);
        const x2 = Math.round((rois[r * 5 + 3] as number) * scale);
        const y2 = Math.round((rois[r * 5 + 4] as number) * scale);
        const binH = Math.max(y2 - y1 + 1, 1) / ph;
        const binW = Math.max(x2 - x1 + 1, 1) / pw;
        for (let c = 0; c < channels; c++) {
          const plane = (b * channels + c) * height * width;
          for (let i = 0; i < ph; i++)
            for (let j = 0; j < pw; j++) {
              const hs = Math.min(Math.max(Math.floor(i * binH) + y1, 0), height);
              const he = Math.min(Math.max(Math.ceil((i + 1) * binH) + y1, 0), height);
              const ws = Math.min(Math.max(Math.floor(j * binW) + x1, 0), width);
              const we = Math.min(Math.max(Math.ceil((j + 1) * binW) + x1, 0), width);
              let best = he <= hs || we <= ws ? 0 : Number.NEGATIVE_INFINITY;
              for (let h = hs; h < he; h++) for (let w = ws; w < we; w++) best = Math.max(best, xs[plane + h * width + w] as number);
              out.data[((r * channels + c) * ph + i) * pw + j] = best;
            }
        }
      }
      out.commit();
    },
  }),
];

import { attr } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { convKernels } from './conv.js';
import { expectClose, f32, runOp, tensorOf, values } from './test-support.fixture.js';

/** Direct 2-D convolution used as an independent oracle. */
function naiveConv2d(
  x: number[],
  xd: number[],
  w: number[],
  wd: number[],
  o: { pads: number[]; strides: number[]; dil: number[]; group: number },
) {
  const [n, c, h, wi] = xd as [number, number, number, number];
  const [m, cg, kh, kw] = wd as [number, number, number, number];
  const oh = Math.floor((h + o.pads[0]! + o.pads[2]! - o.dil[0]! * (kh - 1) - 1) / o.strides[0]!) + 1;
  const ow = Math.floor((wi + o.pads[1]! + o.pads[3]! - o.dil[1]! * (kw - 1) - 1) / o.strides[1]!) + 1;
  const y: number[] = [];
  const mg = m / o.group;
  for (let b = 0; b < n; b++)
    for (let mm = 0; mm < m; mm++)
      for (let i = 0; i < oh; i++)
        for (let j = 0; j < ow; j++) {
          let s = 0;
          const g = Math.floor(mm / mg);
          for (let cc = 0; cc < cg; cc++)
            for (let p = 0; p < kh; p++)
              for (let q = 0; q < kw; q++) {
                const yy = i * o.strides[0]! + p * o.dil[0]! - o.pads[0]!;
                const xx = j * o.strides[1]! + q * o.dil[1]! - o.pads[1]!;
                if (yy < 0 || yy >= h || xx < 0 || xx >= wi) continue;
                s += x[((b * c + g * cg + cc) * h + yy) * wi + xx]! * w[((mm * cg + cc) * kh + p) * kw + q]!;
              }
          y.push(s);
        }
  return { y, dims: [n, m, oh, ow] };
}

describe('Conv', () => {
  it('matches the ONNX basic example (3x3 ones kernel, pads 1)', () => {
    const x = f32(
      [1, 1, 5, 5],
      Array.from({ length: 25 }, (_, i) => i),
    );
    const w = f32([1, 1, 3, 3], new Array(9).fill(1));
    const y = runOp(convKernels, 'Conv', [x, w], { pads: attr.ints([1, 1, 1, 1]) })[0];
    expect(y?.dims).toEqual([1, 1, 5, 5]);
    expect(values(y).slice(0, 5)).toEqual([12, 21, 27, 33, 24]);
  });
  it('agrees with a direct loop for strides, dilations, groups and bias', () => {
    const xd = [2, 4, 7, 6];
    const wd = [6, 2, 3, 2];
    const x = Array.from({ length: 2 * 4 * 7 * 6 }, (_, i) => Math.sin(i));
    const w = Array.from({ length: 6 * 2 * 3 * 2 }, (_, i) => Math.cos(i));
    const o = { pads: [1, 0, 2, 1], strides: [2, 1], dil: [1, 2], group: 2 };
    const ref = naiveConv2d(x, xd, w, wd, o);
    const y = runOp(convKernels, 'Conv', [f32(xd, x), f32(wd, w), f32([6], [1, 2, 3, 4, 5, 6])], {
      pads: attr.ints(o.pads),
      strides: attr.ints(o.strides),
      dilations: attr.ints(o.dil),
      group: attr.int(2),
    })[0];
    expect(y?.dims).toEqual(ref.dims);
    const per = ref.y.length / 12;
    expectClose(
      values(y),
      ref.y.map((v, i) => v + (Math.floor(i / per) % 6) + 1),
    );
  });
  it('agrees with a direct loop for depthwise 3x3 with stride and padding', () => {
    const xd = [1, 3, 6, 5];
    const wd = [3, 1, 3, 3];
    const x = Array.from({ length: 90 }, (_, i) => Math.cos(i * 0.7));
    const w = Array.from({ length: 27 }, (_, i) => Math.sin(i));
    const o = { pads: [1, 2, 1, 0], strides: [2, 1], dil: [1, 1], group: 3 };
    const ref = naiveConv2d(x, xd, w, wd, o);
    const y = runOp(convKernels, 'Conv', [f32(xd, x), f32(wd, w)], {
      pads: attr.ints(o.pads),
      strides: attr.ints(o.strides),
      group: attr.int(3),
    })[0];
    expect(y?.dims).toEqual(ref.dims);
    expectClose(values(y), ref.y);
  });
  it('supports SAME_UPPER, 1-D, float64 and depthwise', () => {
    const y = runOp(convKernels, 'Conv', [tensorOf('float64', [1, 1, 4], [1, 2, 3, 4]), tensorOf('float64', [1, 1, 2], [1, 1])], {
      auto_pad: attr.string('SAME_UPPER'),
    })[0];
    expect(y?.type).toBe('float64');
    expect(values(y)).toEqual([3, 5, 7, 4]);
    const d = runOp(convKernels, 'Conv', [f32([1, 2, 1, 2], [1, 2, 3, 4]), f32([2, 1, 1, 1], [10, 100])], { group: attr.int(2) })[0];
    expect(values(d)).toEqual([10, 20, 300, 400]);
  });
  it('computes ConvInteger with zero points', () => {
    const y = runOp(convKernels, 'ConvInteger', [
      tensorOf('uint8', [1, 1, 2, 2], [2, 3, 4, 5]),
      tensorOf('uint8', [1, 1, 1, 1], [2]),
      tensorOf('uint8', [], [1]),
    ])[0];
    expect(y?.type).toBe('int32');
    expect(values(y)).toEqual([2, 4, 6, 8]);
  });
});

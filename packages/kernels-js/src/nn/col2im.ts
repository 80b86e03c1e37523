/** Col2Im: the adjoint of im2col, scatter-adding column blocks back into an image. */
import { type KernelV1, toNumberArray } from '@tsge/metadef';
import { windowGatherTable, windowGeometry } from '../common/nn-conv-geometry.js';
import { dimProduct } from '@tsge/ops/kernel-support';
import { floatOutput, readFloats } from '../common/nn-float-io.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

export const col2imKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'Col2Im',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const image = toNumberArray(requireTensor(ctx, 1));
      const block = toNumberArray(requireTensor(ctx, 2));
      const rank = image.length;
      if (block.length !== rank || x.dims.length !== 3)
        throw kernelError(ctx, 'input must be [N, C*prod(block), L] and block_shape must match image_shape');
      const kSize = dimProduct(block);
      const colChannels = x.dims[1] as number;
      if (colChannels % kSize !== 0) throw kernelError(ctx, `input channels ${colChannels} are not a multiple of the block size ${kSize}`);
      const channels = colChannels / kSize;
      const ones = new Array<number>(rank).fill(1);
      const geometry = windowGeometry(
        {
          kernel: block,
          strides: ctx.attrs.ints('strides', ones),
          dilations: ctx.attrs.ints('dilations', ones),
          pads: ctx.attrs.ints('pads', new Array<number>(2 * rank).fill(0)),
          autoPad: 'NOTSET',
          ceilMode: false,
        },
        image,
      );
      const blocks = dimProduct(geometry.outDims);
      if (blocks !== x.dims[2]) throw kernelError(ctx, `input has ${x.dims[2]} blocks, the geometry gives ${blocks}`);
      const table = windowGatherTable(geometry);
      const batch = x.dims[0] as number;
      const imageSize = dimProduct(image);
      const xs = readFloats(x);
      const out = floatOutput(ctx, 0, [batch, channels, ...image], x.type);
      out.data.fill(0);
      for (let n = 0; n < batch; n++)
        for (let c = 0; c < channels; c++) {
          const yBase = (n * channels + c) * imageSize;
          for (let k = 0; k < kSize; k++) {
            const row = ((n * channels + c) * kSize + k) * blocks;
            for (let o = 0; o < blocks; o++) {
              const idx = table[k * blocks + o] as number;
              if (idx >= 0) out.data[yBase + idx] = (out.data[yBase + idx] as number) + (xs[row + o] as number);
            }
          }
        }
      out.commit();
    },
  }),
];

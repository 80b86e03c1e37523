/** ConvTranspose: per group, col = Wᵀ·X by GEMM, then col2im scatter-add into the output. */
import type { KernelV1 } from '@tsge/metadef';
import { dimProduct, type TransposeAttrs, type TransposeGeometry, readTransposeAttrs, transposeGeometry } from '@tsge/ops/kernel-support';
import { floatOutput, hasInput, readFloats } from '../common/nn-float-io.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { gemmAccumulate } from '../common/nn-gemm.js';
import { defineKernel } from '../define.js';

/** table[k * inSize + i] = output flat index hit by kernel offset k from input position i, or -1. */
function scatterTable(a: TransposeAttrs, inDims: readonly number[], g: TransposeGeometry): Int32Array {
  const rank = inDims.length;
  const kSize = dimProduct(a.kernel);
  const inSize = dimProduct(inDims);
  const table = new Int32Array(kSize * inSize);
  const kIdx = new Array<number>(rank).fill(0);
  const iIdx = new Array<number>(rank).fill(0);
  for (let k = 0; k < kSize; k++) {
    iIdx.fill(0);
    for (let i = 0; i < inSize; i++) {
      let flat = 0;
      let inside = true;
      for (let d = 0; d < rank; d++) {
        const pos =
          (iIdx[d] as number) * (a.strides[d] as number) + (kIdx[d] as number) * (a.dilations[d] as number) - (g.padsBegin[d] as number);
        const size = g.outDims[d] as number;
        if (pos < 0 || pos >= size) inside = false;
        flat = flat * size + pos;
      }
      table[k * inSize + i] = inside ? flat : -1;
      for (let d = rank - 1; d >= 0; d--) {
        iIdx[d]++;
        if ((iIdx[d] as number) < (inDims[d] as number)) break;
        iIdx[d] = 0;
      }
    }
    for (let d = rank - 1; d >= 0; d--) {
      kIdx[d]++;
      if ((kIdx[d] as number) < (a.kernel[d] as number)) break;
      kIdx[d] = 0;
    }
  }
  return table;
}

export const convTransposeKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'ConvTranspose',
    compute(ctx) {
      const x = requireTensor(ctx, 0);
      const w = requireTensor(ctx, 1);
      if (x.dims.length < 3 || w.dims.length !== x.dims.length)
        throw kernelError(ctx, `X [${x.dims}] and W [${w.dims}] must have equal rank >= 3`);
      const group = ctx.attrs.int('group', 1);
      const batch = x.dims[0] as number;
      const channels = x.dims[1] as number;
      if (w.dims[0] !== channels || group < 1 || channels % group !== 0)
        throw kernelError(ctx, `W [${w.dims}] does not match ${channels} input channels in ${group} groups`);
      const mg = w.dims[1] as number;
      const outChannels = mg * group;
      const cg = channels / group;
      const kernel = ctx.attrs.ints('kernel_shape', w.dims.slice(2));
      const attrs = readTransposeAttrs(ctx.attrs, kernel);
      const inDims = x.dims.slice(2);
      const g = transposeGeometry(attrs, inDims);
      if (g.outDims.some((d) => d < 0)) throw kernelError(ctx, `negative output size [${g.outDims}]`);
      const table = scatterTable(attrs, inDims, g);
      const inSize = dimProduct(inDims);
      const outSize = dimProduct(g.outDims);
      const kSize = dimProduct(kernel);
      const xs = readFloats(x);
      const ws = readFloats(w);
      const bias = hasInput(ctx, 2) ? readFloats(requireTensor(ctx, 2)) : undefined;
      const out = floatOutput(ctx, 0, [batch, outChannels, ...g.outDims], x.type);
      const y = out.data;
      // Wᵀ per group: [mg * kSize, cg]
      const wt = new Float64Array(group * mg * kSize * cg);
      for (let grp = 0; grp < group; grp++)
        for (let c = 0; c < cg; c++)
          for (let r = 0; r < mg * kSize; r++) wt[grp * mg * kSize * cg + r * cg + c] = ws[(grp * cg + c) * mg * kSize + r] as number;
      const xd = xs instanceof Float64Array ? xs : Float64Array.from(xs);
      const col = new Float64Array(mg * kSize * inSize);
      for (let n = 0; n < batch; n++)
        for (let grp = 0; grp < group; grp++) {
          col.fill(0);
          gemmAccumulate(wt, grp * mg * kSize * cg, xd, (n * channels + grp * cg) * inSize, col, 0, { m: mg * kSize, k: cg, n: inSize });
          for (let m = 0; m < mg; m++) {
            const oc = grp * mg + m;
            const yBase = (n * outChannels + oc) * outSize;
            y.fill(bias ? (bias[oc] as number) : 0, yBase, yBase + outSize);
            for (let k = 0; k < kSize; k++) {
              const row = (m * kSize + k) * inSize;
              const t = k * inSize;
              for (let i = 0; i < inSize; i++) {
                const o = table[t + i] as number;
                if (o >= 0) y[yBase + o] = (y[yBase + o] as number) + (col[row + i] as number);
              }
            }
          }
        }
      out.commit();
    },
  }),
];

/** ConvTranspose: per group, col = Wᵀ·X by GEMM, then col2im scatter-add into the output. */
import type { InferenceContextV1, KernelV1, OpDefinitionV1, Shape } from '@tsge/metadef';
import { InferenceError, isUnknownRank } from '@tsge/metadef';
import {
  NN_FLOAT_TYPES,
  dimProduct,
  floatOutput,
  hasInput,
  inputInfo,
  kernelError,
  readFloats,
  requireTensor,
} from '../common/nn-float-io.js';
import { gemmAccumulate } from '../common/nn-gemm.js';
import { defineKernel, defineOp, param } from '../define.js';
import { checkWindowAttrs } from './window-attrs-check.js';

interface TransposeGeometry {
  readonly outDims: number[];
  readonly padsBegin: number[];
}

interface TransposeAttrs {
  readonly kernel: readonly number[];
  readonly strides: readonly number[];
  readonly dilations: readonly number[];
  readonly pads: readonly number[];
  readonly outputPadding: readonly number[];
  readonly outputShape: readonly number[] | undefined;
  readonly autoPad: string;
}

function readTransposeAttrs(attrs: InferenceContextV1['attrs'], kernel: readonly number[]): TransposeAttrs {
  const n = kernel.length;
  const ones = new Array<number>(n).fill(1);
  const zeros = new Array<number>(n).fill(0);
  const outputShape = attrs.has('output_shape') ? attrs.ints('output_shape') : undefined;
  return {
    kernel,
    strides: attrs.ints('strides', ones),
    dilations: attrs.ints('dilations', ones),
    pads: attrs.ints('pads', [...zeros, ...zeros]),
    outputPadding: attrs.ints('output_padding', zeros),
    outputShape: outputShape ? outputShape.slice(outputShape.length - n) : undefined,
    autoPad: attrs.string('auto_pad', 'NOTSET'),
  };
}

function transposeGeometry(a: TransposeAttrs, inDims: readonly number[]): TransposeGeometry {
  const n = inDims.length;
  const outDims: number[] = [];
  const padsBegin: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = a.strides[i] as number;
    const extent = ((a.kernel[i] as number) - 1) * (a.dilations[i] as number) + 1;
    const full = s * ((inDims[i] as number) - 1) + (a.outputPadding[i] as number) + extent;
    const same = a.autoPad === 'SAME_UPPER' || a.autoPad === 'SAME_LOWER';
    if (a.outputShape || same) {
      const out = a.outputShape ? (a.outputShape[i] as number) : (inDims[i] as number) * s;
      const total = full - out;
      const half = Math.floor(total / 2);
      padsBegin.push(a.autoPad === 'SAME_UPPER' ? half : total - half);
      outDims.push(out);
    } else if (a.autoPad === 'VALID') {
      padsBegin.push(0);
      outDims.push(full);
    } else {
      padsBegin.push(a.pads[i] as number);
      outDims.push(full - (a.pads[i] as number) - (a.pads[i + n] as number));
    }
  }
  return { outDims, padsBegin };
}

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

export const convTransposeOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'ConvTranspose',
    sinceVersion: 22,
    inputs: [param.required('X', 'T'), param.required('W', 'T'), param.optional('B', 'T')],
    outputs: [param.required('Y', 'T')],
    attributes: [
      { name: 'auto_pad', kind: 'string', default: { kind: 'string', value: 'NOTSET' } },
      { name: 'dilations', kind: 'ints' },
      { name: 'group', kind: 'int', default: { kind: 'int', value: 1 } },
      { name: 'kernel_shape', kind: 'ints' },
      { name: 'output_padding', kind: 'ints' },
      { name: 'output_shape', kind: 'ints' },
      { name: 'pads', kind: 'ints' },
      { name: 'strides', kind: 'ints' },
    ],
    typeConstraints: [{ name: 'T', allowed: NN_FLOAT_TYPES }],
    infer(ctx) {
      checkWindowAttrs(ctx);
      const x = inputInfo(ctx, 0);
      const w = inputInfo(ctx, 1);
      if (isUnknownRank(x.shape) || isUnknownRank(w.shape)) {
        ctx.setOutput(0, { dtype: x.dtype, shape: [-2] });
        return;
      }
      if (x.shape.length < 3) throw new InferenceError(`ConvTranspose ${ctx.nodeName}: X must have rank >= 3`);
      const group = ctx.attrs.int('group', 1);
      const m = w.shape[1];
      const channels: Shape[number] = typeof m === 'number' && m >= 0 ? m * group : -1;
      const kernel = ctx.attrs.has('kernel_shape') ? ctx.attrs.ints('kernel_shape') : w.shape.slice(2);
      const spatial = x.shape.slice(2);
      let out: Shape[number][];
      if (kernel.every((k) => typeof k === 'number' && k >= 0) && spatial.every((d) => typeof d === 'number' && d >= 0)) {
        out = transposeGeometry(readTransposeAttrs(ctx.attrs, kernel as number[]), spatial as number[]).outDims;
      } else out = spatial.map(() => -1);
      ctx.setOutput(0, { dtype: x.dtype, shape: [x.shape[0] as Shape[number], channels, ...out] });
    },
  }),
];

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

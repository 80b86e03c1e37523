/** ConvTranspose: per group, col = Wᵀ·X by GEMM, then col2im scatter-add into the output. */
import { type InferenceContextV1, type OpDefinitionV1, type Shape, InferenceError, isUnknownRank } from '@tsge/metadef';
import { NN_FLOAT_TYPES, inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';
import { checkWindowAttrs } from './window-attrs-check.js';

export interface TransposeGeometry {
  readonly outDims: number[];
  readonly padsBegin: number[];
}

export interface TransposeAttrs {
  readonly kernel: readonly number[];
  readonly strides: readonly number[];
  readonly dilations: readonly number[];
  readonly pads: readonly number[];
  readonly outputPadding: readonly number[];
  readonly outputShape: readonly number[] | undefined;
  readonly autoPad: string;
}

export function readTransposeAttrs(attrs: InferenceContextV1['attrs'], kernel: readonly number[]): TransposeAttrs {
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

export function transposeGeometry(a: TransposeAttrs, inDims: readonly number[]): TransposeGeometry {
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

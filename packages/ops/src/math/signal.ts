/** Signal ops: DFT, STFT, Hann/Hamming/Blackman windows and MelWeightMatrix. */
import { type OpDefinitionV1, type Shape, InferenceError, isUnknownRank, readNumber } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';
import { readTargetType } from './cast.js';
import { FLOATS, NUMERIC } from './op-types.js';

function constScalar(ctx: Parameters<OpDefinitionV1['infer']>[0], index: number): number | undefined {
  const v = ctx.inputValue(index);
  return v && v.data.length > 0 ? readNumber(v, 0) : undefined;
}

export const signalOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'DFT',
    sinceVersion: 20,
    inputs: [param.required('input', 'T1'), param.optional('dft_length', 'T2'), param.optional('axis', 'int64')],
    outputs: [param.required('output', 'T1')],
    attributes: [
      { name: 'inverse', kind: 'int', default: { kind: 'int', value: 0 } },
      { name: 'onesided', kind: 'int', default: { kind: 'int', value: 0 } },
    ],
    typeConstraints: [
      { name: 'T1', allowed: FLOATS },
      { name: 'T2', allowed: ['int32', 'int64'] },
    ],
    infer: (ctx) => {
      const x = requireInput(ctx, 0);
      if (isUnknownRank(x.shape)) return ctx.setOutput(0, { dtype: x.dtype, shape: x.shape });
      const rank = x.shape.length;
      const legacyDefault = ctx.opsetVersion > 0 && ctx.opsetVersion < 20 ? 1 : -2;
      const axisValue = ctx.input(2) ? constScalar(ctx, 2) : ctx.attrs.int('axis', legacyDefault);
      const length = ctx.input(1) ? constScalar(ctx, 1) : undefined;
      const onesided = ctx.attrs.int('onesided', 0) !== 0;
      const realOutput = onesided && ctx.attrs.int('inverse', 0) !== 0;
      if (axisValue === undefined)
        return ctx.setOutput(0, { dtype: x.dtype, shape: [...x.shape.slice(0, -1).map(() => -1), realOutput ? 1 : 2] });
      const axis = axisValue < 0 ? axisValue + rank : axisValue;
      if (axis < 0 || axis >= rank - 1) throw new InferenceError(`DFT ${ctx.nodeName}: axis ${axisValue} out of range`);
      const halfInverse = onesided && ctx.attrs.int('inverse', 0) !== 0;
      const size = x.shape[axis]!;
      const n = length ?? (ctx.input(1) ? -1 : halfInverse ? (typeof size === 'number' && size > 0 ? 2 * (size - 1) : -1) : size);
      const bins = typeof n === 'number' && n >= 0 ? (onesided && !halfInverse ? Math.floor(n / 2) + 1 : n) : halfInverse ? -1 : n;
      const shape: Shape = x.shape.map((d, i) => (i === axis ? bins : i === rank - 1 ? (halfInverse ? 1 : 2) : d));
      ctx.setOutput(0, { dtype: x.dtype, shape });
    },
  }),
  defineOp({
    type: 'STFT',
    sinceVersion: 17,
    inputs: [
      param.required('signal', 'T1'),
      param.required('frame_step', 'T2'),
      param.optional('window', 'T1'),
      param.optional('frame_length', 'T2'),
    ],
    outputs: [param.required('output', 'T1')],
    attributes: [{ name: 'onesided', kind: 'int', default: { kind: 'int', value: 1 } }],
    typeConstraints: [
      { name: 'T1', allowed: FLOATS },
      { name: 'T2', allowed: ['int32', 'int64'] },
    ],
    infer: (ctx) => {
      const x = requireInput(ctx, 0);
      const step = constScalar(ctx, 1);
      const window = ctx.input(2);
      const frameLength = constScalar(ctx, 3) ?? (window && !isUnknownRank(window.shape) ? window.shape[0] : undefined);
      const onesided = ctx.attrs.int('onesided', 1) !== 0;
      const batch = isUnknownRank(x.shape) ? -1 : (x.shape[0] ?? -1);
      const length = isUnknownRank(x.shape) ? -1 : (x.shape[1] ?? -1);
      const known = typeof frameLength === 'number' && frameLength > 0;
      const bins = known ? (onesided ? Math.floor(frameLength / 2) + 1 : frameLength) : -1;
      const frames = known && typeof length === 'number' && length >= 0 && step ? Math.floor((length - frameLength) / step) + 1 : -1;
      ctx.setOutput(0, { dtype: x.dtype, shape: [batch, frames, bins, 2] });
    },
  }),
  ...(['HannWindow', 'HammingWindow', 'BlackmanWindow'] as const).map((type) =>
    defineOp({
      type,
      sinceVersion: 17,
      inputs: [param.required('size', 'T1')],
      outputs: [param.required('output', 'T2')],
      attributes: [
        { name: 'output_datatype', kind: 'int', default: { kind: 'int', value: 1 } },
        { name: 'periodic', kind: 'int', default: { kind: 'int', value: 1 } },
      ],
      typeConstraints: [
        { name: 'T1', allowed: ['int32', 'int64'] },
        { name: 'T2', allowed: NUMERIC },
      ],
      infer: (ctx) => {
        const size = constScalar(ctx, 0);
        ctx.setOutput(0, { dtype: readTargetType(ctx.attrs, 'output_datatype') ?? 'float32', shape: [size ?? ctx.newSymbol('window')] });
      },
    }),
  ),
  defineOp({
    type: 'MelWeightMatrix',
    sinceVersion: 17,
    inputs: [
      param.required('num_mel_bins', 'T1'),
      param.required('dft_length', 'T1'),
      param.required('sample_rate', 'T1'),
      param.required('lower_edge_hertz', 'T2'),
      param.required('upper_edge_hertz', 'T2'),
    ],
    outputs: [param.required('output', 'T3')],
    attributes: [{ name: 'output_datatype', kind: 'int', default: { kind: 'int', value: 1 } }],
    typeConstraints: [
      { name: 'T1', allowed: ['int32', 'int64'] },
      { name: 'T2', allowed: FLOATS },
      { name: 'T3', allowed: NUMERIC },
    ],
    infer: (ctx) => {
      const bins = constScalar(ctx, 0);
      const length = constScalar(ctx, 1);
      ctx.setOutput(0, {
        dtype: readTargetType(ctx.attrs, 'output_datatype') ?? 'float32',
        shape: [length === undefined ? -1 : Math.floor(length / 2) + 1, bins ?? -1],
      });
    },
  }),
];

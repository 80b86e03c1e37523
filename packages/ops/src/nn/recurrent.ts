/**
 * RNN, GRU and LSTM (opset 22 semantics): directions, per-direction activations with
 * alpha/beta, clip, layout 0/1, initial states, peepholes, input_forget, linear_before_reset and
 * sequence_lens. State math runs in float64; one batch row is advanced at a time.
 */
import { type InferenceContextV1, type OpDefinitionV1, type Shape, isUnknownRank } from '@tsge/metadef';
import { NN_FLOAT_TYPES, inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

function inferRecurrent(ctx: InferenceContextV1): void {
  const x = inputInfo(ctx, 0);
  const layout = ctx.attrs.int('layout', 0);
  const directions = ctx.attrs.string('direction', 'forward') === 'bidirectional' ? 2 : 1;
  const rInfo = ctx.input(2);
  const hidden: Shape[number] = ctx.attrs.has('hidden_size')
    ? ctx.attrs.int('hidden_size')
    : rInfo && !isUnknownRank(rInfo.shape)
      ? (rInfo.shape[2] as Shape[number])
      : -1;
  const known = !isUnknownRank(x.shape) && x.shape.length === 3;
  const seq: Shape[number] = known ? (x.shape[layout === 0 ? 0 : 1] as Shape[number]) : -1;
  const batch: Shape[number] = known ? (x.shape[layout === 0 ? 1 : 0] as Shape[number]) : -1;
  ctx.setOutput(0, { dtype: x.dtype, shape: layout === 0 ? [seq, directions, batch, hidden] : [batch, seq, directions, hidden] });
  const state: Shape = layout === 0 ? [directions, batch, hidden] : [batch, directions, hidden];
  for (let i = 1; i < ctx.outputCount; i++) ctx.setOutput(i, { dtype: x.dtype, shape: state });
}

const commonAttributes = [
  { name: 'activation_alpha', kind: 'floats' },
  { name: 'activation_beta', kind: 'floats' },
  { name: 'activations', kind: 'strings' },
  { name: 'clip', kind: 'float' },
  { name: 'direction', kind: 'string', default: { kind: 'string', value: 'forward' } },
  { name: 'hidden_size', kind: 'int' },
  { name: 'layout', kind: 'int', default: { kind: 'int', value: 0 } },
] as const;

const recurrentInputs = [
  param.required('X', 'T'),
  param.required('W', 'T'),
  param.required('R', 'T'),
  param.optional('B', 'T'),
  param.optional('sequence_lens', 'T1'),
  param.optional('initial_h', 'T'),
];
const recurrentTypes = [
  { name: 'T', allowed: NN_FLOAT_TYPES },
  { name: 'T1', allowed: ['int32'] as const },
];

export const recurrentOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'RNN',
    sinceVersion: 22,
    inputs: recurrentInputs,
    outputs: [param.optional('Y', 'T'), param.optional('Y_h', 'T')],
    attributes: commonAttributes,
    typeConstraints: recurrentTypes,
    infer: inferRecurrent,
  }),
  defineOp({
    type: 'GRU',
    sinceVersion: 22,
    inputs: recurrentInputs,
    outputs: [param.optional('Y', 'T'), param.optional('Y_h', 'T')],
    attributes: [...commonAttributes, { name: 'linear_before_reset', kind: 'int', default: { kind: 'int', value: 0 } }],
    typeConstraints: recurrentTypes,
    infer: inferRecurrent,
  }),
  defineOp({
    type: 'LSTM',
    sinceVersion: 22,
    inputs: [...recurrentInputs, param.optional('initial_c', 'T'), param.optional('P', 'T')],
    outputs: [param.optional('Y', 'T'), param.optional('Y_h', 'T'), param.optional('Y_c', 'T')],
    attributes: [...commonAttributes, { name: 'input_forget', kind: 'int', default: { kind: 'int', value: 0 } }],
    typeConstraints: recurrentTypes,
    infer: inferRecurrent,
  }),
];

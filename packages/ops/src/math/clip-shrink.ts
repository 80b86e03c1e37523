/** Clip (min/max as optional inputs) and Shrink. */
import type { OpDefinitionV1 } from '@tsge/metadef';
import { inferSameAsInput } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';
import { NUMERIC } from './op-types.js';

export const clipShrinkOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'Clip',
    sinceVersion: 13,
    inputs: [param.required('input', 'T'), param.optional('min', 'T'), param.optional('max', 'T')],
    outputs: [param.required('output', 'T')],
    typeConstraints: [{ name: 'T', allowed: NUMERIC }],
    infer: inferSameAsInput,
  }),
  defineOp({
    type: 'Shrink',
    sinceVersion: 9,
    inputs: [param.required('input', 'T')],
    outputs: [param.required('output', 'T')],
    attributes: [
      { name: 'bias', kind: 'float', default: { kind: 'float', value: 0 } },
      { name: 'lambd', kind: 'float', default: { kind: 'float', value: 0.5 } },
    ],
    typeConstraints: [{ name: 'T', allowed: NUMERIC }],
    infer: inferSameAsInput,
  }),
];

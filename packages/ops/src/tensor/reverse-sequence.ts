// ReverseSequence: reverse the first sequence_lens[b] steps of each batch entry along the time axis.
import { ALL_TENSOR_TYPES } from '@tsge/metadef';
import { inferSameAsInput } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';

export const reverseSequenceOp = defineOp({
  type: 'ReverseSequence',
  sinceVersion: 10,
  inputs: [param.required('input', 'T'), param.required('sequence_lens', 'int64')],
  outputs: [param.required('Y', 'T')],
  attributes: [
    { name: 'batch_axis', kind: 'int', default: { kind: 'int', value: 1 } },
    { name: 'time_axis', kind: 'int', default: { kind: 'int', value: 0 } },
  ],
  typeConstraints: [{ name: 'T', allowed: ALL_TENSOR_TYPES }],
  infer: inferSameAsInput,
});

export const reverseSequenceOps = [reverseSequenceOp];

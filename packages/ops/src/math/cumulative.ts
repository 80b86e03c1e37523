/** CumSum and CumProd along an axis given as input, with exclusive and reverse modes. */
import type { OpDefinitionV1 } from '@tsge/metadef';
import { inferSameAsInput } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';
import { NUMERIC } from './op-types.js';

export const cumulativeOps: readonly OpDefinitionV1[] = ['CumSum', 'CumProd'].map((type) =>
  defineOp({
    type,
    sinceVersion: type === 'CumSum' ? 14 : 26,
    inputs: [param.required('x', 'T'), param.required('axis', 'T2')],
    outputs: [param.required('y', 'T')],
    attributes: [
      { name: 'exclusive', kind: 'int', default: { kind: 'int', value: 0 } },
      { name: 'reverse', kind: 'int', default: { kind: 'int', value: 0 } },
    ],
    typeConstraints: [
      { name: 'T', allowed: NUMERIC },
      { name: 'T2', allowed: ['int32', 'int64'] },
    ],
    infer: inferSameAsInput,
  }),
);

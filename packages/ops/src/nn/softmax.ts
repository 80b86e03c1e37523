/** Softmax and LogSoftmax along one axis (opset 13); older opsets flatten at `axis` first. */
import type { OpDefinitionV1 } from '@tsge/metadef';
import { inferSameAsInput } from '../common/infer-helpers.js';
import { NN_FLOAT_TYPES } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

const schema = (type: string) =>
  defineOp({
    type,
    sinceVersion: 13,
    inputs: [param.required('input', 'T')],
    outputs: [param.required('output', 'T')],
    attributes: [{ name: 'axis', kind: 'int', default: { kind: 'int', value: -1 } }],
    typeConstraints: [{ name: 'T', allowed: NN_FLOAT_TYPES }],
    infer: inferSameAsInput,
  });

export const softmaxOps: readonly OpDefinitionV1[] = [schema('Softmax'), schema('LogSoftmax')];

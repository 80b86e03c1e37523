/** RotaryEmbedding (opset 23): rotates the first rotary_embedding_dim features of each head. */
import type { OpDefinitionV1 } from '@tsge/metadef';
import { NN_FLOAT_TYPES, inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

export const rotaryEmbeddingOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'RotaryEmbedding',
    sinceVersion: 23,
    inputs: [
      param.required('X', 'T'),
      param.required('cos_cache', 'T'),
      param.required('sin_cache', 'T'),
      param.optional('position_ids', 'M'),
    ],
    outputs: [param.required('Y', 'T')],
    attributes: [
      { name: 'interleaved', kind: 'int', default: { kind: 'int', value: 0 } },
      { name: 'num_heads', kind: 'int' },
      { name: 'rotary_embedding_dim', kind: 'int', default: { kind: 'int', value: 0 } },
    ],
    typeConstraints: [
      { name: 'T', allowed: NN_FLOAT_TYPES },
      { name: 'M', allowed: ['int64'] },
    ],
    infer(ctx) {
      const x = inputInfo(ctx, 0);
      ctx.setOutput(0, { dtype: x.dtype, shape: x.shape });
    },
  }),
];

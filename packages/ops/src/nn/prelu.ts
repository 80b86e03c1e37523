/** PRelu: y = x < 0 ? slope * x : x, slope broadcast unidirectionally to x. */
import { type OpDefinitionV1, InferenceError, broadcastShapes, shapeToString } from '@tsge/metadef';
import { NN_FLOAT_TYPES, inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

export const preluOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'PRelu',
    sinceVersion: 16,
    inputs: [param.required('X', 'T'), param.required('slope', 'T')],
    outputs: [param.required('Y', 'T')],
    typeConstraints: [{ name: 'T', allowed: [...NN_FLOAT_TYPES, 'int32', 'int64', 'uint32', 'uint64'] }],
    infer(ctx) {
      const x = inputInfo(ctx, 0);
      const slope = inputInfo(ctx, 1);
      const shape = broadcastShapes(x.shape, slope.shape);
      if (!shape)
        throw new InferenceError(
          `PRelu ${ctx.nodeName}: slope ${shapeToString(slope.shape)} does not broadcast to ${shapeToString(x.shape)}`,
        );
      ctx.setOutput(0, { dtype: x.dtype, shape });
    },
  }),
];

/** Add, Sub, Mul, Div, Pow, Mod: numpy-broadcasting arithmetic over every numeric type. */
import {
  type DataType,
  type InferenceContextV1,
  type OpDefinitionV1,
  InferenceError,
  broadcastShapes,
  isFloatType,
  isUnknownRank,
} from '@tsge/metadef';
import { inferBroadcast, requireInput } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';
import { NUMERIC } from './op-types.js';

/** Broadcast inference, honouring the pre-opset-7 `broadcast`/`axis` attributes; output `dtype` or A's. */
export function inferLegacyBroadcast(ctx: InferenceContextV1, dtype?: DataType): void {
  const a = requireInput(ctx, 0);
  const b = requireInput(ctx, 1);
  if (ctx.attrs.int('broadcast', 0) === 0 || !ctx.attrs.has('axis') || isUnknownRank(a.shape) || isUnknownRank(b.shape)) {
    inferBroadcast(ctx, dtype);
    return;
  }
  const raw = ctx.attrs.int('axis');
  const axis = raw < 0 ? raw + a.shape.length : raw;
  const trailing = a.shape.length - axis - b.shape.length;
  const shape = broadcastShapes(a.shape, trailing > 0 ? [...b.shape, ...new Array<number>(trailing).fill(1)] : b.shape);
  if (!shape) throw new InferenceError(`${ctx.opType} ${ctx.nodeName}: shapes do not broadcast at axis ${raw}`);
  ctx.setOutput(0, { dtype: dtype ?? a.dtype, shape });
}

const arithmeticInfer = (ctx: InferenceContextV1): void => inferLegacyBroadcast(ctx);

function arithmeticOp(type: string): OpDefinitionV1 {
  return defineOp({
    type,
    sinceVersion: 14,
    inputs: [param.required('A', 'T'), param.required('B', 'T')],
    outputs: [param.required('C', 'T')],
    typeConstraints: [{ name: 'T', allowed: NUMERIC }],
    infer: arithmeticInfer,
  });
}

export const binaryArithmeticOps: readonly OpDefinitionV1[] = [
  ...['Add', 'Sub', 'Mul', 'Div'].map(arithmeticOp),
  defineOp({
    type: 'Pow',
    sinceVersion: 15,
    inputs: [param.required('X', 'T'), param.required('Y', 'T1')],
    outputs: [param.required('Z', 'T')],
    typeConstraints: [
      { name: 'T', allowed: NUMERIC.filter((t) => t !== 'int8' && t !== 'int16' && !t.startsWith('uint')) },
      { name: 'T1', allowed: NUMERIC },
    ],
    infer: (ctx) => inferLegacyBroadcast(ctx),
  }),
  defineOp({
    type: 'Mod',
    sinceVersion: 13,
    inputs: [param.required('A', 'T'), param.required('B', 'T')],
    outputs: [param.required('C', 'T')],
    attributes: [{ name: 'fmod', kind: 'int', default: { kind: 'int', value: 0 } }],
    typeConstraints: [{ name: 'T', allowed: NUMERIC }],
    infer: (ctx) => {
      const a = requireInput(ctx, 0);
      if (isFloatType(a.dtype) && ctx.attrs.int('fmod', 0) !== 1) {
        throw new InferenceError(`Mod ${ctx.nodeName}: fmod must be 1 for floating point inputs`);
      }
      inferBroadcast(ctx);
    },
  }),
];

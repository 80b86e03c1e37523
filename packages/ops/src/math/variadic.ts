/** Sum, Mean, Max, Min over one or more broadcasting inputs. */
import type { OpDefinitionV1 } from '@tsge/metadef';
import { inferBroadcast } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';
import { FLOATS, NUMERIC } from './op-types.js';

export type Combine = 'sum' | 'max' | 'min';

export const OPS: readonly [string, Combine, boolean][] = [
  ['Sum', 'sum', false],
  ['Mean', 'sum', true],
  ['Max', 'max', false],
  ['Min', 'min', false],
];

export const variadicOps: readonly OpDefinitionV1[] = OPS.map(([type]) =>
  defineOp({
    type,
    sinceVersion: 13,
    inputs: [param.variadic('data_0', 'T')],
    outputs: [param.required(type.toLowerCase(), 'T')],
    typeConstraints: [{ name: 'T', allowed: type === 'Sum' || type === 'Mean' ? FLOATS : NUMERIC }],
    infer: (ctx) => inferBroadcast(ctx),
  }),
);

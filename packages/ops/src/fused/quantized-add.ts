import { type OpDefinitionV1, InferenceError, TSGE_DOMAIN } from '@tsge/metadef';
import { inferBroadcast } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';

/**
 * tsge::QuantizedAdd: the fixed-point addition of two quantized tensors that LiteRT runs for a
 * quantized TFLite ADD (XNNPACK's qu8/qs8 add): with integer multipliers, bias and shift that the
 * importer derives from the scales and zero points, per element (a, b broadcast)
 *   y = saturate(floor((bias + a·a_multiplier + b·b_multiplier) / 2^shift) + zero_point)
 * in exact integer arithmetic, saturated to the range of the inputs' type. Its rounding differs
 * from DequantizeLinear → Add → QuantizeLinear, which is why the importer does not use those.
 * The attributes are checked so that the sum fits int32 for every pair of input values.
 */
export const QUANTIZED_ADD = 'QuantizedAdd';

/** Largest multiplier magnitude (XNNPACK's are below 2^21 + 1). */
export const QUANTIZED_ADD_MAX_MULTIPLIER = 2 ** 22;

export const quantizedAddDefinition: OpDefinitionV1 = defineOp({
  type: QUANTIZED_ADD,
  domain: TSGE_DOMAIN,
  sinceVersion: 1,
  doc: 'Fixed-point sum of two quantized tensors: saturate(((bias + a·a_multiplier + b·b_multiplier) >> shift) + zero_point).',
  inputs: [param.required('a', 'T'), param.required('b', 'T')],
  outputs: [param.required('y', 'T')],
  attributes: [
    { name: 'a_multiplier', kind: 'int', required: true },
    { name: 'b_multiplier', kind: 'int', required: true },
    { name: 'bias', kind: 'int', required: true },
    { name: 'shift', kind: 'int', required: true },
    { name: 'zero_point', kind: 'int', required: true },
  ],
  typeConstraints: [{ name: 'T', allowed: ['int8', 'uint8'] }],
  infer: (ctx) => {
    const a = ctx.input(0);
    const bad = (what: string) => new InferenceError(`${QUANTIZED_ADD} ${ctx.nodeName}: ${what}`);
    const am = ctx.attrs.int('a_multiplier', 0);
    const bm = ctx.attrs.int('b_multiplier', 0);
    const bias = ctx.attrs.int('bias', 0);
    const shift = ctx.attrs.int('shift', 0);
    const zp = ctx.attrs.int('zero_point', 0);
    if (!Number.isInteger(shift) || shift < 0 || shift > 31) throw bad(`shift ${shift} is outside [0, 31]`);
    for (const [name, m] of [
      ['a_multiplier', am],
      ['b_multiplier', bm],
    ] as const)
      if (!Number.isInteger(m) || Math.abs(m) > QUANTIZED_ADD_MAX_MULTIPLIER) throw bad(`${name} ${m} is outside ±2^22`);
    const [lo, hi] = a?.dtype === 'int8' ? [-128, 127] : [0, 255];
    if (!Number.isInteger(zp) || zp < lo || zp > hi) throw bad(`zero_point ${zp} is outside [${lo}, ${hi}]`);
    // the sum is linear in a and b: its extremes are at the corners of the input range
    for (const x of [lo, hi])
      for (const y of [lo, hi]) {
        const sum = bias + x * am + y * bm;
        if (!Number.isInteger(sum) || sum < -(2 ** 31) || sum >= 2 ** 31) throw bad(`bias ${bias} lets the sum leave int32`);
      }
    inferBroadcast(ctx);
  },
});

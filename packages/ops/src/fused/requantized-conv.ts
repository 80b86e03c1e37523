import { type OpDefinitionV1, InferenceError, TSGE_DOMAIN, isUnknownRank } from '@tsge/metadef';
import { inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';
import { inferConv, windowAttributes } from '../nn/conv.js';
import { PACKED_WEIGHT, packedWeightMismatch, packedWeightShape } from './packed-int-weights.js';

/**
 * tsge::RequantizedConv: an integer convolution with its requantization, as the compiler fuses it
 * from ConvInteger → Add(int32 bias) → Cast(float32) → Mul(scale) → QuantizeLinear(scale 1, zero
 * point) → Clip (the form the TFLite importer gives quantized CONV_2D, DEPTHWISE_CONV_2D and
 * FULLY_CONNECTED). Per output element, with acc the ConvInteger result:
 *   y = clamp(roundHalfEven(f32(f32(acc + bias) · scale)) + y_zero_point, y_min, y_max)
 * where f32 rounds to float32 and the clamp also saturates to the range of Y's type. scale is one
 * value or one per output channel; bias is one int32 per output channel. With exact_product = 1
 * (what a QLinearConv with constant scales becomes) the sum and its product with the scale are
 * exact, as QLinearConv's reference computes them:
 *   y = clamp(roundHalfEven((acc + bias) · scale) + y_zero_point, y_min, y_max)
 * With `packed_weight` (set by the compiler for a constant weight) w is int16 w − w_zero_point in
 * the integer GEMM's layout (packed-int-weights.ts), kernel_shape is set and w_zero_point absent.
 */
export const REQUANTIZED_CONV = 'RequantizedConv';

export const requantizedConvDefinition: OpDefinitionV1 = defineOp({
  type: REQUANTIZED_CONV,
  domain: TSGE_DOMAIN,
  sinceVersion: 1,
  doc: 'ConvInteger + int32 bias, then float32 requantization (scale, zero point) and an optional clamp, fused.',
  inputs: [
    param.required('x', 'T1'),
    param.required('w', 'T2'),
    param.optional('x_zero_point', 'T1'),
    param.optional('w_zero_point', 'T2'),
    param.optional('bias', 'int32'),
    param.required('scale', 'float32'),
    param.required('y_zero_point', 'T3'),
    param.optional('y_min', 'T3'),
    param.optional('y_max', 'T3'),
  ],
  outputs: [param.required('y', 'T3')],
  attributes: [
    ...windowAttributes,
    { name: 'exact_product', kind: 'int', default: { kind: 'int', value: 0 } },
    { name: PACKED_WEIGHT, kind: 'ints' },
  ],
  typeConstraints: [
    { name: 'T1', allowed: ['int8', 'uint8'] },
    // int16 only as a packed weight (its zero point then absent)
    { name: 'T2', allowed: ['int8', 'uint8', 'int16'] },
    { name: 'T3', allowed: ['int8', 'uint8'] },
  ],
  infer: (ctx) => {
    const zp = ctx.input(6);
    if (!zp) throw new InferenceError(`${REQUANTIZED_CONV} ${ctx.nodeName}: y_zero_point is required`);
    const w = inputInfo(ctx, 1);
    const bad = (what: string) => new InferenceError(`${REQUANTIZED_CONV} ${ctx.nodeName}: ${what}`);
    if (ctx.attrs.has(PACKED_WEIGHT)) {
      const shape = packedWeightShape(ctx.attrs.ints(PACKED_WEIGHT));
      if (typeof shape === 'string') throw bad(`${PACKED_WEIGHT} ${shape}`);
      const kernel = ctx.attrs.has('kernel_shape') ? ctx.attrs.ints('kernel_shape') : [];
      if (kernel.length !== 2 || kernel[0] !== shape.dims[2] || kernel[1] !== shape.dims[3])
        throw bad(`a packed weight needs kernel_shape [${shape.dims.slice(2).join(', ')}], got [${kernel.join(', ')}]`);
      if (w.dtype !== 'int16' || ctx.input(3)) throw bad('a packed weight is int16 with no w_zero_point');
      const dims = !isUnknownRank(w.shape) && w.shape.every((d) => typeof d === 'number') ? (w.shape as number[]) : undefined;
      const why = dims && packedWeightMismatch(shape, dims, ctx.attrs.int('group', 1));
      if (why) throw bad(why);
    } else if (w.dtype === 'int16') throw bad(`an int16 w needs ${PACKED_WEIGHT}`);
    inferConv(ctx, zp.dtype);
  },
});

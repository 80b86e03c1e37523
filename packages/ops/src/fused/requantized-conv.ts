import { type OpDefinitionV1, InferenceError, TSGE_DOMAIN } from '@tsge/metadef';
import { defineOp, param } from '../define.js';
import { inferConv, windowAttributes } from '../nn/conv.js';

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
  attributes: [...windowAttributes, { name: 'exact_product', kind: 'int', default: { kind: 'int', value: 0 } }],
  typeConstraints: [
    { name: 'T1', allowed: ['int8', 'uint8'] },
    { name: 'T2', allowed: ['int8', 'uint8'] },
    { name: 'T3', allowed: ['int8', 'uint8'] },
  ],
  infer: (ctx) => {
    const zp = ctx.input(6);
    if (!zp) throw new InferenceError(`${REQUANTIZED_CONV} ${ctx.nodeName}: y_zero_point is required`);
    inferConv(ctx, zp.dtype);
  },
});

import { type Value, attr } from '@tsge/metadef';
import type { TfliteTensor } from '../../schema/model.js';
import { type ImportContext, type Layout, TO_NCHW, onnxTypeCode, permuteShape } from '../context.js';
import { agnosticLayout, integerRange } from '../helpers.js';

/**
 * QUANTIZE: float → integers with the output's parameters, or a requantization of integers to
 * new parameters. A per-tensor 8-bit requantization is computed as LiteRT's CPU path (XNNPACK's
 * convert) does, with an 8-bit fixed-point multiplier m = round(256·s_in/s_out):
 * q_out = floor((q_in·m + 256·z_out − m·z_in + 128) / 256). Every step is exact in float32 for
 * the scale ratios it accepts (2⁻⁸..2⁷); other cases go through DequantizeLinear/QuantizeLinear.
 */
export function quantize(ctx: ImportContext): void {
  const x = ctx.requireInput(0);
  const out = ctx.outputTensor();
  const layout = agnosticLayout(ctx, [0], out.shape.length);
  if (ctx.sameQuant(x, out)) {
    ctx.set(out.index, ctx.raw(x, layout), layout);
    return;
  }
  const requantized = eightBitRequantize(ctx, x, out, layout);
  if (requantized) ctx.set(out.index, requantized, layout);
  else ctx.setFloat(out, ctx.float(x, layout), layout);
}

function eightBitRequantize(ctx: ImportContext, x: TfliteTensor, out: TfliteTensor, layout: Layout): Value | undefined {
  const eightBit = (t: TfliteTensor) => ctx.isQuantized(t) && (ctx.dtypeOf(t) === 'uint8' || ctx.dtypeOf(t) === 'int8');
  if (!eightBit(x) || !eightBit(out)) return undefined;
  const qi = ctx.quant(x);
  const qo = ctx.quant(out);
  if (!qi || !qo || qi.axis !== undefined || qo.axis !== undefined) return undefined;
  const ratio = Math.fround((qi.scale[0] as number) / (qo.scale[0] as number));
  if (!(ratio >= 2 ** -8 && ratio <= 2 ** 7)) return undefined;
  const m = Math.round(256 * ratio);
  const zi = qi.zeroPoint[0] ?? 0;
  const zo = qo.zeroPoint[0] ?? 0;
  const dtype = ctx.dtypeOf(out);
  const [lo, hi] = integerRange(dtype);
  const shape = layout === 'nchw' ? permuteShape(ctx.shapeOf(out), TO_NCHW) : ctx.shapeOf(out);
  const scalar = (name: string, v: number) => ctx.constant(name, Float32Array.of(v), [], 'float32');
  const values = ctx.node('Cast', [ctx.raw(x, layout)], 'float32', shape, { to: attr.int(1) });
  const scaled = ctx.node('Mul', [values, scalar('multiplier', m)], 'float32', shape);
  const biased = ctx.node('Add', [scaled, scalar('bias', 256 * zo - m * zi + 128)], 'float32', shape);
  const floored = ctx.node('Floor', [ctx.node('Mul', [biased, scalar('inv256', 1 / 256)], 'float32', shape)], 'float32', shape);
  const clipped = ctx.node('Clip', [floored, scalar('lo', lo), scalar('hi', hi)], 'float32', shape);
  return ctx.node('Cast', [clipped], dtype, shape, { to: attr.int(onnxTypeCode(dtype)) });
}

/** DEQUANTIZE: integers (or float16 weights) to float32. */
export function dequantize(ctx: ImportContext): void {
  const x = ctx.requireInput(0);
  const out = ctx.outputTensor();
  const layout = agnosticLayout(ctx, [0], out.shape.length);
  ctx.setFloat(out, ctx.float(x, layout), layout);
}

import type { ImportContext } from '../context.js';
import { agnosticLayout } from '../helpers.js';

/**
 * QUANTIZE: float → integers with the output's parameters, or a requantization of integers to
 * new parameters (DequantizeLinear then QuantizeLinear, both in the graph).
 */
export function quantize(ctx: ImportContext): void {
  const x = ctx.requireInput(0);
  const out = ctx.outputTensor();
  const layout = agnosticLayout(ctx, [0], out.shape.length);
  if (ctx.sameQuant(x, out)) {
    ctx.set(out.index, ctx.raw(x, layout), layout);
    return;
  }
  ctx.setFloat(out, ctx.float(x, layout), layout);
}

/** DEQUANTIZE: integers (or float16 weights) to float32. */
export function dequantize(ctx: ImportContext): void {
  const x = ctx.requireInput(0);
  const out = ctx.outputTensor();
  const layout = agnosticLayout(ctx, [0], out.shape.length);
  ctx.setFloat(out, ctx.float(x, layout), layout);
}

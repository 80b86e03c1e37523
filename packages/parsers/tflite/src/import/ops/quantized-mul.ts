import { type Value, attr } from '@tsge/metadef';
import type { TfliteTensor } from '../../schema/model.js';
import { type ImportContext, type Layout, TO_NCHW, permuteShape } from '../context.js';
import { clampQuantized } from '../helpers.js';
import { perTensorBytes } from './quantized-add.js';

/**
 * A quantized MUL as LiteRT computes it: its wasm CPU path hands quantized MUL to XNNPACK, whose
 * qu8/qs8 multiply takes the exact integer product (a − a_zero)·(b − b_zero), converts it to
 * float32, scales it by the float32 a_scale·b_scale / y_scale and rounds half to even ("fp32"
 * requantisation). Dequantizing both inputs and multiplying floats rounds differently for some
 * pairs, so the product is built from integer Sub/Mul, a Cast and QuantizeLinear (scale 1, which
 * rounds half to even and saturates like XNNPACK's clamp).
 */

/** XNNPACK's float32 output multiplier, or undefined outside the range it accepts ([2^-16, 2^8)). */
export function productScale(aScale: number, bScale: number, yScale: number): number | undefined {
  const s = Math.fround(Math.fround(aScale * bScale) / yScale);
  return s >= 2 ** -16 && s < 2 ** 8 ? s : undefined;
}

/**
 * Sets `out` to a ⊗ b the way XNNPACK does when all three are per-tensor quantized bytes of one
 * type and XNNPACK would take them; false (nothing added) otherwise.
 */
export function quantizedMul(
  ctx: ImportContext,
  a: TfliteTensor,
  b: TfliteTensor,
  out: TfliteTensor,
  layout: Layout,
  shape: readonly number[],
  activation: number,
): boolean {
  const operands = perTensorBytes(ctx, a, b, out, layout, activation);
  if (!operands) return false;
  const { dtype, qa, qb, qy } = operands;
  const scale = productScale(qa.scale[0] as number, qb.scale[0] as number, qy.scale[0] as number);
  if (scale === undefined) return false;
  const centred = (t: TfliteTensor, zero: number): Value => {
    const raw = ctx.raw(t, layout);
    const native = ctx.shapeOf(t) as number[];
    const dims = layout === 'nchw' ? permuteShape(native, TO_NCHW) : native;
    const wide = ctx.node('Cast', [raw], 'int32', dims, { to: attr.int(6) });
    return zero === 0 ? wide : ctx.node('Sub', [wide, ctx.constant('zero_point', Int32Array.of(zero), [], 'int32')], 'int32', dims);
  };
  // |product| ≤ 256² is exact in int32 and float32
  const product = ctx.node('Mul', [centred(a, qa.zeroPoint[0] ?? 0), centred(b, qb.zeroPoint[0] ?? 0)], 'int32', shape);
  const scaled = ctx.node(
    'Mul',
    [ctx.node('Cast', [product], 'float32', shape, { to: attr.int(1) }), ctx.constant('scale', Float32Array.of(scale), [], 'float32')],
    'float32',
    shape,
  );
  const yZero = qy.zeroPoint[0] ?? 0;
  const Ctor = dtype === 'int8' ? Int8Array : Uint8Array;
  const q = ctx.node(
    'QuantizeLinear',
    [scaled, ctx.constant('one', Float32Array.of(1), [], 'float32'), ctx.constant('zero_point', Ctor.of(yZero), [], dtype)],
    dtype,
    shape,
  );
  ctx.set(out.index, clampQuantized(ctx, q, activation, dtype, qy.scale[0] as number, yZero, shape), layout);
  return true;
}

import { TSGE_DOMAIN, type Value, attr, createTensorDesc } from '@tsge/metadef';
import type { TfliteTensor } from '../../schema/model.js';
import type { ImportContext, Layout, QuantParams } from '../context.js';
import { clampQuantized } from '../helpers.js';

/**
 * A quantized ADD or SUB as LiteRT computes it: its wasm CPU path hands both to XNNPACK, whose
 * qu8/qs8 add is fixed-point (multipliers of 20-21 bits, one rounding shift), not the float
 * DequantizeLinear → Add → QuantizeLinear, which rounds differently for some inputs; its subtract
 * is the same add with the second input's multiplier negated. The node is tsge::QuantizedAdd
 * (defined in @tsge/ops, which parsers do not import).
 */
const QUANTIZED_ADD = 'QuantizedAdd';

export interface FixedPointAdd {
  readonly aMultiplier: number;
  readonly bMultiplier: number;
  readonly bias: number;
  readonly shift: number;
}

const bits = new DataView(new ArrayBuffer(4));

/** Round half to even (lrintf in the default rounding mode). */
function lrint(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/**
 * XNNPACK's parameters (xnn_init_qu8_add_minmax_scalar_params) for inputs a, b and output y
 * (float32 scales, integer zero points) of a + b, or of a − b when `subtract` (b's ratio negated),
 * or undefined where XNNPACK does not take the op (an input to output scale ratio outside
 * [2^-10, 2^8): TFLite's delegate leaves it to its own kernel).
 */
export function fixedPointAdd(
  aScale: number,
  aZero: number,
  bScale: number,
  bZero: number,
  yScale: number,
  subtract = false,
): FixedPointAdd | undefined {
  const aRatio = Math.fround(aScale / yScale);
  const bRatio = Math.fround(bScale / yScale);
  for (const r of [aRatio, bRatio]) if (!(r >= 2 ** -10 && r < 2 ** 8)) return undefined;
  // the shift comes from the larger magnitude; lrint is odd, so negating before or after is one
  bits.setFloat32(0, Math.max(aRatio, bRatio));
  const shift = 20 - ((bits.getUint32(0) >>> 23) - 127);
  const aMultiplier = lrint(aRatio * 2 ** shift);
  const bMultiplier = (subtract ? -1 : 1) * lrint(bRatio * 2 ** shift);
  return { aMultiplier, bMultiplier, bias: 2 ** (shift - 1) - aMultiplier * aZero - bMultiplier * bZero, shift };
}

/**
 * Sets `out` to a ⊕ b (a ⊖ b when `subtract`) through tsge::QuantizedAdd when all three are
 * per-tensor quantized bytes of one type and XNNPACK would take them; false (nothing added) otherwise.
 */
export function quantizedAdd(
  ctx: ImportContext,
  a: TfliteTensor,
  b: TfliteTensor,
  out: TfliteTensor,
  layout: Layout,
  shape: readonly number[],
  activation: number,
  subtract = false,
): boolean {
  const operands = perTensorBytes(ctx, a, b, out, layout, activation);
  if (!operands) return false;
  const { dtype, qa, qb, qy } = operands;
  const yZero = qy.zeroPoint[0] ?? 0;
  const p = fixedPointAdd(
    qa.scale[0] as number,
    qa.zeroPoint[0] ?? 0,
    qb.scale[0] as number,
    qb.zeroPoint[0] ?? 0,
    qy.scale[0] as number,
    subtract,
  );
  if (!p) return false;
  const sum: Value = ctx.b.op(QUANTIZED_ADD, [ctx.raw(a, layout), ctx.raw(b, layout)], {
    name: ctx.name(QUANTIZED_ADD),
    domain: TSGE_DOMAIN,
    attrs: {
      a_multiplier: attr.int(p.aMultiplier),
      b_multiplier: attr.int(p.bMultiplier),
      bias: attr.int(p.bias),
      shift: attr.int(p.shift),
      zero_point: attr.int(yZero),
    },
    outputDescs: [createTensorDesc(dtype, shape)],
  });
  ctx.set(out.index, clampQuantized(ctx, sum, activation, dtype, qy.scale[0] as number, yZero, shape), layout);
  return true;
}

/**
 * The operands of a quantized binary op XNNPACK takes in integers: per-tensor quantized bytes of
 * one type, a clamp-only fused activation (NONE, RELU, RELU_N1_TO_1, RELU6) and, in NCHW, 4-D
 * inputs (a lower-rank constant has no NCHW form of its own); undefined otherwise.
 */
export function perTensorBytes(
  ctx: ImportContext,
  a: TfliteTensor,
  b: TfliteTensor,
  out: TfliteTensor,
  layout: Layout,
  activation: number,
): { dtype: 'uint8' | 'int8'; qa: QuantParams; qb: QuantParams; qy: QuantParams } | undefined {
  const dtype = ctx.dtypeOf(out);
  if (activation < 0 || activation > 3) return undefined;
  if ((dtype !== 'uint8' && dtype !== 'int8') || ctx.dtypeOf(a) !== dtype || ctx.dtypeOf(b) !== dtype) return undefined;
  const [qa, qb, qy] = [ctx.quant(a), ctx.quant(b), ctx.quant(out)];
  if (!qa || !qb || !qy || qa.axis !== undefined || qb.axis !== undefined || qy.axis !== undefined) return undefined;
  if (layout === 'nchw' && [a, b].some((t) => t.shape.length !== 4)) return undefined;
  return { dtype, qa, qb, qy };
}

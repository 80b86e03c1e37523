import { KOp } from '@tsge/metadef';
import type { Code } from './emitter.js';
import { emitExpNonPositive } from './elementwise-module.js';

/** The op codes the emitter turns into SIMD; a description using others runs on the interpreter. */
export type Emit = (code: Code, a: number, b: number, temp: () => number) => void;
export const EMIT: Readonly<Record<number, Emit>> = {
  [KOp.neg]: (c, a) => c.f32x4Const(0).get(a).f32x4Sub(),
  [KOp.abs]: (c, a) => c.get(a).f32x4Abs(),
  // pmax(x, 0) = x < 0 ? 0 : x keeps NaN and −0, as onnxruntime's Relu does
  [KOp.relu]: (c, a) => c.get(a).f32x4Const(0).f32x4Pmax(),
  [KOp.reciprocal]: (c, a) => c.f32x4Const(1).get(a).f32x4Div(),
  [KOp.floor]: (c, a) => c.get(a).f32x4Floor(),
  [KOp.ceil]: (c, a) => c.get(a).f32x4Ceil(),
  // correctly rounded, as Math.fround(Math.sqrt(x)) is
  [KOp.sqrt]: (c, a) => c.get(a).f32x4Sqrt(),
  [KOp.copy]: (c, a) => c.get(a),
  // e = exp(-|x|/2) ≤ 1, then e² at or below 0 and (1/e)² above: halving keeps e above the flush to
  // 0 at -87.3, so exp(x) stays finite up to ln(max float) ≈ 88.72 (and +∞ past it); NaN stays NaN
  [KOp.exp]: (c, a, _b, temp) => {
    const e = temp();
    const q = temp();
    c.get(a).f32x4Abs().f32x4Const(-0.5).f32x4Mul().set(e);
    emitExpNonPositive(c, { temp }, e, e);
    c.f32x4Const(1).get(e).f32x4Div().set(q);
    c.get(q).get(q).f32x4Mul().get(e).get(e).f32x4Mul().f32x4Const(0).get(a).f32x4Lt().v128Bitselect();
  },
  [KOp.sigmoid]: (c, a, _b, temp) => {
    // e = exp(-|x|) never overflows; 1/(1+e) for x ≥ 0 and e/(1+e) below
    const e = temp();
    const s = temp();
    c.get(a).f32x4Abs().f32x4Const(-1).f32x4Mul().set(e);
    emitExpNonPositive(c, { temp }, e, e);
    c.f32x4Const(1).f32x4Const(1).get(e).f32x4Add().f32x4Div().set(s);
    c.get(s).get(e).get(s).f32x4Mul().get(a).f32x4Const(0).f32x4Ge().v128Bitselect();
  },
  [KOp.add]: (c, a, b) => c.get(a).get(b).f32x4Add(),
  [KOp.sub]: (c, a, b) => c.get(a).get(b).f32x4Sub(),
  [KOp.mul]: (c, a, b) => c.get(a).get(b).f32x4Mul(),
  [KOp.div]: (c, a, b) => c.get(a).get(b).f32x4Div(),
  [KOp.max]: (c, a, b) => c.get(a).get(b).f32x4Max(),
  [KOp.min]: (c, a, b) => c.get(a).get(b).f32x4Min(),
  [KOp.leaky]: (c, a, b) => c.get(a).get(a).get(b).f32x4Mul().get(a).f32x4Const(0).f32x4Ge().v128Bitselect(),
  // pmax(a, b) = a < b ? b : a and pmin(a, b) = b < a ? b : a keep NaN and −0 of a, as onnxruntime's Clip does
  [KOp.clampLo]: (c, a, b) => c.get(a).get(b).f32x4Pmax(),
  [KOp.clampHi]: (c, a, b) => c.get(a).get(b).f32x4Pmin(),
};

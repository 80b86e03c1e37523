import type { LinearMemory } from '@tsge/metadef';
import { Code, F32, type FunctionDef, I32, V128 } from './emitter.js';
import { extraModule } from './extra-modules.js';

/** The powers `beta` with a SIMD form: d^0.75 = √(d·√d), d^0.5 = √d, d^1 = d. */
export const LRN_POWERS = [0.75, 0.5, 1] as const;
export type LrnPower = (typeof LRN_POWERS)[number];

/** f32x4.sqrt (opcode 0xfd 0xe3 0x01), which the shared emitter has no method for. */
function f32x4Sqrt(code: Code): void {
  code.bytes.push(0xfd, 0xe3, 0x01);
}

const functionName = (power: LrnPower): string => `lrnAcross${String(power).replace('.', '_')}`;

/**
 * Generates `lrnAcross(x, y, c, plane, start, end, before, after, scale, bias)`: for every channel
 * ch of an image at byte address x (planes of `plane` bytes) and byte offsets [start, end) within
 * a plane (a multiple of 16 bytes), y = x / (bias + scale·Σ x²)^power with the sum over channels
 * [ch − before, ch + after] ∩ [0, c). Squares of the window are summed afresh in float32: at most
 * `size` positive terms, so no cancellation (a running sum would lose small windows to big ones).
 * Squares overflow float32 only for |x| > 1.8e19, where the float64 reference still gives a tiny y
 * and this gives 0.
 */
function lrnAcrossFunction(power: LrnPower): FunctionDef {
  const [x, y, c, plane, start, end, before, after, scale, bias] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const code = new Code(10);
  const ch = code.local(I32);
  const lo = code.local(I32);
  const hi = code.local(I32);
  const at = code.local(I32);
  const k = code.local(I32);
  const addr = code.local(I32);
  const window = code.local(I32);
  const xc = code.local(I32);
  const yc = code.local(I32);
  const acc = code.local(V128);
  const v = code.local(V128);
  const d = code.local(V128);
  const scaleV = code.local(V128);
  const biasV = code.local(V128);
  code.get(scale).f32x4Splat().set(scaleV);
  code.get(bias).f32x4Splat().set(biasV);
  code.i32(0).set(ch);
  code.block().loop();
  code.get(ch).get(c).i32GeS().brIf(1);
  // window [lo, hi] of channels, clipped to the image
  code.get(ch).get(before).i32Sub().set(lo);
  code.i32(0).get(lo).get(lo).i32(0).i32LtS().select().set(lo);
  code.get(ch).get(after).i32Add().set(hi);
  code.get(c).i32(-1).i32Add().get(hi).get(hi).get(c).i32GeS().select().set(hi);
  code.get(lo).get(plane).i32Mul().get(x).i32Add().set(window);
  code.get(ch).get(plane).i32Mul().set(xc);
  code.get(xc).get(y).i32Add().set(yc);
  code.get(xc).get(x).i32Add().set(xc);
  code.get(start).set(at);
  code.block().loop();
  code.get(at).get(end).i32GeS().brIf(1);
  // Σ x² over the window
  code.f32x4Const(0).set(acc);
  code.get(window).get(at).i32Add().set(addr);
  code.get(lo).set(k);
  code.block().loop();
  code.get(k).get(hi).i32GtS().brIf(1);
  code.get(addr).v128Load().set(v);
  code.get(acc).get(v).get(v).f32x4Mul().f32x4Add().set(acc);
  code.get(addr).get(plane).i32Add().set(addr);
  code.get(k).i32(1).i32Add().set(k);
  code.br(0).end().end();
  // d = bias + scale·Σ, then y = x / d^power
  code.get(biasV).get(scaleV).get(acc).f32x4Mul().f32x4Add().set(d);
  if (power === 0.75) {
    code.get(d).get(d);
    f32x4Sqrt(code);
    code.f32x4Mul();
    f32x4Sqrt(code);
    code.set(d);
  } else if (power === 0.5) {
    code.get(d);
    f32x4Sqrt(code);
    code.set(d);
  }
  code.get(yc).get(at).i32Add();
  code.get(xc).get(at).i32Add().v128Load().get(d).f32x4Div();
  code.v128Store();
  code.get(at).i32(16).i32Add().set(at);
  code.br(0).end().end();
  code.get(ch).i32(1).i32Add().set(ch);
  code.br(0).end().end();
  return { name: functionName(power), params: [I32, I32, I32, I32, I32, I32, I32, I32, F32, F32], results: [], code };
}

export type LrnAcross = (
  x: number,
  y: number,
  c: number,
  plane: number,
  start: number,
  end: number,
  before: number,
  after: number,
  scale: number,
  bias: number,
) => void;

const lrnExports = extraModule('lrn', () => LRN_POWERS.map(lrnAcrossFunction));

/** The SIMD LRN function for `power` over `memory`; undefined without SIMD. */
export function lrnAcross(memory: LinearMemory, power: LrnPower): LrnAcross | undefined {
  return lrnExports(memory)?.[functionName(power)] as LrnAcross | undefined;
}

import type { LinearMemory } from '@tsge/metadef';
import { Code, F32, type FunctionDef, I32, V128, type ValType } from './emitter.js';
import { extraModule } from './extra-modules.js';

/**
 * Generates `rotaryRows(x, y, cos, sin, rows, half, cosStep, sinStep)` (byte addresses and steps):
 * for each of `rows` contiguous rows of 2·half float32, with x₁, x₂ the halves of the row and c, s
 * the cos and sin rows (advancing by cosStep, sinStep bytes per row; 0 repeats one row),
 * y₁ = x₁·c₁ − x₂·s₁ and y₂ = x₂·c₂ + x₁·s₂: float32 products then one add, as the unfused graph.
 */
function rotaryRowsFunction(): FunctionDef {
  const params: ValType[] = [I32, I32, I32, I32, I32, I32, I32, I32];
  const [x, y, cos, sin, rows, half, cosStep, sinStep] = [0, 1, 2, 3, 4, 5, 6, 7];
  const code = new Code(params.length);
  const row = code.local(I32);
  const at = code.local(I32);
  const hb = code.local(I32);
  const vectorEnd = code.local(I32);
  const zero = code.local(I32);
  const lo = code.local(I32);
  const hi = code.local(I32);
  const c = code.local(I32);
  const s = code.local(I32);
  const yl = code.local(I32);
  const yh = code.local(I32);
  /** for (at = from; at < to; at += step) body */
  const loop = (from: number, to: number, step: number, body: () => void): void => {
    code.get(from).set(at);
    code.block().loop();
    code.get(at).get(to).i32GeS().brIf(1);
    body();
    code.get(at).i32(step).i32Add().set(at);
    code.br(0).end().end();
  };
  /** Sets the element addresses of `at` in this row: x₁, x₂, c, s, y₁, y₂. */
  const addresses = (): void => {
    code.get(x).get(at).i32Add().set(lo);
    code.get(lo).get(hb).i32Add().set(hi);
    code.get(cos).get(at).i32Add().set(c);
    code.get(sin).get(at).i32Add().set(s);
    code.get(y).get(at).i32Add().set(yl);
    code.get(yl).get(hb).i32Add().set(yh);
  };
  code.i32(0).set(zero);
  code.get(half).i32(2).i32Shl().set(hb);
  code.get(half).i32(-4).i32And().i32(2).i32Shl().set(vectorEnd);
  code.i32(0).set(row);
  code.block().loop();
  code.get(row).get(rows).i32GeS().brIf(1);
  loop(zero, vectorEnd, 16, () => {
    addresses();
    code.get(yl);
    code.get(lo).v128Load().get(c).v128Load().f32x4Mul();
    code.get(hi).v128Load().get(s).v128Load().f32x4Mul().f32x4Sub();
    code.v128Store();
    code.get(yh);
    code.get(hi).v128Load().get(c).get(hb).i32Add().v128Load().f32x4Mul();
    code.get(lo).v128Load().get(s).get(hb).i32Add().v128Load().f32x4Mul().f32x4Add();
    code.v128Store();
  });
  loop(vectorEnd, hb, 4, () => {
    addresses();
    code.get(yl);
    code.get(lo).f32Load().get(c).f32Load().f32Mul();
    code.get(hi).f32Load().get(s).f32Load().f32Mul().f32Sub();
    code.f32Store();
    code.get(yh);
    code.get(hi).f32Load().get(c).get(hb).i32Add().f32Load().f32Mul();
    code.get(lo).f32Load().get(s).get(hb).i32Add().f32Load().f32Mul().f32Add();
    code.f32Store();
  });
  code.get(x).get(hb).i32(1).i32Shl().i32Add().set(x);
  code.get(y).get(hb).i32(1).i32Shl().i32Add().set(y);
  code.get(cos).get(cosStep).i32Add().set(cos);
  code.get(sin).get(sinStep).i32Add().set(sin);
  code.get(row).i32(1).i32Add().set(row);
  code.br(0).end().end();
  return { name: 'rotaryRows', params, results: [], code };
}

/**
 * Generates `rotaryRowsInterleaved(x, y, cos, sin, rows, half, cosStep, sinStep)`: the same rows
 * with adjacent pairs rotated (GPT-J): y[2i] = x[2i]·c[2i] − x[2i+1]·s[2i], y[2i+1] = x[2i+1]·c[2i+1]
 * + x[2i]·s[2i+1]. Two pairs a vector: rotate(x) is one shuffle of x and −x.
 */
function rotaryRowsInterleavedFunction(): FunctionDef {
  const params: ValType[] = [I32, I32, I32, I32, I32, I32, I32, I32];
  const [x, y, cos, sin, rows, half, cosStep, sinStep] = [0, 1, 2, 3, 4, 5, 6, 7];
  const code = new Code(params.length);
  const row = code.local(I32);
  const at = code.local(I32);
  const rowBytes = code.local(I32);
  const vectorEnd = code.local(I32);
  const v = code.local(V128);
  const x0 = code.local(F32);
  const x1 = code.local(F32);
  code.get(half).i32(3).i32Shl().set(rowBytes);
  code.get(rowBytes).i32(-16).i32And().set(vectorEnd);
  code.i32(0).set(row);
  code.block().loop();
  code.get(row).get(rows).i32GeS().brIf(1);
  code.i32(0).set(at);
  code.block().loop();
  code.get(at).get(vectorEnd).i32GeS().brIf(1);
  code.get(y).get(at).i32Add();
  code.get(x).get(at).i32Add().v128Load().tee(v).get(cos).get(at).i32Add().v128Load().f32x4Mul();
  // [−x1, x0, −x3, x2]: lanes 1 and 3 of −x (first operand), 0 and 2 of x (second)
  code.get(v).f32x4Neg().get(v);
  code.i8x16Shuffle([4, 5, 6, 7, 16, 17, 18, 19, 12, 13, 14, 15, 24, 25, 26, 27]);
  code.get(sin).get(at).i32Add().v128Load().f32x4Mul().f32x4Add();
  code.v128Store();
  code.get(at).i32(16).i32Add().set(at);
  code.br(0).end().end();
  // a last pair when the row holds an odd number of pairs
  code.block();
  code.get(at).get(rowBytes).i32GeS().brIf(0);
  code.get(x).get(at).i32Add().f32Load().set(x0);
  code.get(x).get(at).i32Add().f32Load(4).set(x1);
  code.get(y).get(at).i32Add();
  code.get(x0).get(cos).get(at).i32Add().f32Load().f32Mul().get(x1).get(sin).get(at).i32Add().f32Load().f32Mul().f32Sub();
  code.f32Store();
  code.get(y).get(at).i32Add();
  code.get(x1).get(cos).get(at).i32Add().f32Load(4).f32Mul().get(x0).get(sin).get(at).i32Add().f32Load(4).f32Mul().f32Add();
  code.f32Store(4);
  code.end();
  code.get(x).get(rowBytes).i32Add().set(x);
  code.get(y).get(rowBytes).i32Add().set(y);
  code.get(cos).get(cosStep).i32Add().set(cos);
  code.get(sin).get(sinStep).i32Add().set(sin);
  code.get(row).i32(1).i32Add().set(row);
  code.br(0).end().end();
  return { name: 'rotaryRowsInterleaved', params, results: [], code };
}

export type RotaryRows = (
  x: number,
  y: number,
  cos: number,
  sin: number,
  rows: number,
  half: number,
  cosStep: number,
  sinStep: number,
) => void;

const rotaryExports = extraModule('rotary', () => [rotaryRowsFunction(), rotaryRowsInterleavedFunction()]);

/** The SIMD rotary rows over `memory`; undefined without SIMD. */
export function rotaryRows(memory: LinearMemory, interleaved = false): RotaryRows | undefined {
  const exports = rotaryExports(memory);
  return (interleaved ? exports?.rotaryRowsInterleaved : exports?.rotaryRows) as RotaryRows | undefined;
}

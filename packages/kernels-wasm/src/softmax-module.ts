import { Code, F32, type FunctionDef, I32, V128 } from './emitter.js';
import { emitExpNonPositive } from './elementwise-module.js';

/**
 * Generates `softmaxRows(x, y, rows, n)`: for each of `rows` contiguous rows of n float32,
 * y = exp(x − max) / Σ exp(x − max). Three passes a row: the maximum (f32x4.max, so NaN spreads as
 * in the reference), the exponentials stored and summed, then the division by the sum.
 * The n % 4 tail runs the same vector code on splatted single elements.
 */
export function softmaxRowsFunction(): FunctionDef {
  const [x, y, rows, n] = [0, 1, 2, 3];
  const code = new Code(4);
  const row = code.local(I32);
  const at = code.local(I32);
  const end = code.local(I32);
  const vectorEnd = code.local(I32);
  const acc = code.local(V128);
  const v = code.local(V128);
  const max = code.local(V128);
  const scalar = code.local(F32);
  const env = { temp: () => code.local(V128) };
  const lanes = (combine: () => void): void => {
    code.get(acc).f32x4ExtractLane(0).get(acc).f32x4ExtractLane(1);
    combine();
    code.get(acc).f32x4ExtractLane(2).get(acc).f32x4ExtractLane(3);
    combine();
    combine();
  };
  /** A loop over the row's byte offsets [from, to) in steps of `step`. */
  const loop = (from: number | null, to: number, step: number, body: () => void): void => {
    if (from !== null) code.get(from).set(at);
    code.block().loop();
    code.get(at).get(to).i32GeS().brIf(1);
    body();
    code.get(at).i32(step).i32Add().set(at);
    code.br(0).end().end();
  };
  const exp = (): void => {
    code.get(max).f32x4Sub().set(v);
    emitExpNonPositive(code, env, v, v);
  };
  const zero = code.local(I32);
  code.get(n).i32(-4).i32And().i32(2).i32Shl().set(vectorEnd);
  code.get(n).i32(2).i32Shl().set(end);
  code.i32(0).set(row).i32(0).set(zero);
  code.block().loop();
  code.get(row).get(rows).i32GeS().brIf(1);
  // pass 1: maximum
  code.f32x4Const(Number.NEGATIVE_INFINITY).set(acc);
  loop(zero, vectorEnd, 16, () => code.get(acc).get(x).get(at).i32Add().v128Load().f32x4Max().set(acc));
  lanes(() => code.f32Max());
  code.set(scalar);
  loop(null, end, 4, () => code.get(scalar).get(x).get(at).i32Add().f32Load().f32Max().set(scalar));
  code.get(scalar).f32x4Splat().set(max);
  // pass 2: exponentials and their sum
  code.f32x4Const(0).set(acc);
  loop(zero, vectorEnd, 16, () => {
    code.get(x).get(at).i32Add().v128Load();
    exp();
    code.get(y).get(at).i32Add().get(v).v128Store();
    code.get(acc).get(v).f32x4Add().set(acc);
  });
  lanes(() => code.f32Add());
  code.set(scalar);
  loop(null, end, 4, () => {
    code.get(x).get(at).i32Add().f32Load().f32x4Splat();
    exp();
    code.get(y).get(at).i32Add().get(v).f32x4ExtractLane(0).f32Store();
    code.get(scalar).get(v).f32x4ExtractLane(0).f32Add().set(scalar);
  });
  // pass 3: divide by the sum
  code.get(scalar).f32x4Splat().set(acc);
  loop(zero, vectorEnd, 16, () => code.get(y).get(at).i32Add().get(y).get(at).i32Add().v128Load().get(acc).f32x4Div().v128Store());
  loop(null, end, 4, () => code.get(y).get(at).i32Add().get(y).get(at).i32Add().f32Load().get(scalar).f32Div().f32Store());
  code.get(x).get(end).i32Add().set(x);
  code.get(y).get(end).i32Add().set(y);
  code.get(row).i32(1).i32Add().set(row);
  code.br(0).end().end();
  return { name: 'softmaxRows', params: [I32, I32, I32, I32], results: [], code };
}

export interface SoftmaxExports {
  softmaxRows(x: number, y: number, rows: number, n: number): void;
}

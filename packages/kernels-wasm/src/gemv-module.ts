import { Code, F32, type FunctionDef, I32, V128 } from './emitter.js';

/**
 * Generates `dotRows(a, b, y, rows, K, alpha)`: y[j] = alpha · Σ_k a[k]·b[j·K + k] for j < rows
 * (byte addresses, float32): the fully connected layer with B stored [N×K] (Gemm transB=1), one
 * streaming pass over B. Two f32x4 accumulators take 8 floats a step; the K % 8 tail is scalar.
 */
export function dotRowsFunction(): FunctionDef {
  const [a, b, y, rows, K, alpha] = [0, 1, 2, 3, 4, 5];
  const code = new Code(6);
  const row = code.local(I32);
  const at = code.local(I32);
  const end = code.local(I32);
  const brow = code.local(I32);
  const acc0 = code.local(V128);
  const acc1 = code.local(V128);
  const sum = code.local(F32);
  code.i32(0).set(row);
  code.get(b).set(brow);
  code.block().loop();
  code.get(row).get(rows).i32GeS().brIf(1);
  code.f32x4Const(0).set(acc0);
  code.f32x4Const(0).set(acc1);
  code.i32(0).set(at);
  code.get(K).i32(-8).i32And().i32(2).i32Shl().set(end);
  code.block().loop();
  code.get(at).get(end).i32GeS().brIf(1);
  code.get(acc0).get(a).get(at).i32Add().v128Load().get(brow).get(at).i32Add().v128Load().f32x4Mul().f32x4Add().set(acc0);
  code.get(acc1).get(a).get(at).i32Add().v128Load(16).get(brow).get(at).i32Add().v128Load(16).f32x4Mul().f32x4Add().set(acc1);
  code.get(at).i32(32).i32Add().set(at);
  code.br(0).end().end();
  code.get(acc0).get(acc1).f32x4Add().set(acc0);
  code.get(acc0).f32x4ExtractLane(0).get(acc0).f32x4ExtractLane(1).f32Add();
  code.get(acc0).f32x4ExtractLane(2).get(acc0).f32x4ExtractLane(3).f32Add().f32Add().set(sum);
  code.get(K).i32(2).i32Shl().set(end);
  code.block().loop();
  code.get(at).get(end).i32GeS().brIf(1);
  code.get(sum).get(a).get(at).i32Add().f32Load().get(brow).get(at).i32Add().f32Load().f32Mul().f32Add().set(sum);
  code.get(at).i32(4).i32Add().set(at);
  code.br(0).end().end();
  code.get(y).get(row).i32(2).i32Shl().i32Add().get(sum).get(alpha).f32Mul().f32Store();
  code.get(brow).get(K).i32(2).i32Shl().i32Add().set(brow);
  code.get(row).i32(1).i32Add().set(row);
  code.br(0).end().end();
  return { name: 'dotRows', params: [I32, I32, I32, I32, I32, F32], results: [], code };
}

export interface GemvExports {
  dotRows(a: number, b: number, y: number, rows: number, K: number, alpha: number): void;
}

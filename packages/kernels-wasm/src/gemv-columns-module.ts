import { Code, type FunctionDef, I32, V128 } from './emitter.js';

/**
 * Generates `gemvColumns(a, lda, b, ldb, y, ldy, m, k, n, strip)`: Y[m×n] = A[m×k]·B[k×n] for the
 * few rows of a decode step (byte addresses and byte strides, float32, n a multiple of 4), with B
 * in the order it is stored (row-major, no packing). Columns go in strips of `strip` bytes whose Y
 * rows stay in L1; down each strip four rows of B stream at once (each a contiguous strip-wide run,
 * read once however many rows A has, as the strip is still in L1 for rows after the first), so
 * B is read once, sequentially within every page, and Y is loaded and stored once per four rows of B.
 */
export function gemvColumnsFunction(): FunctionDef {
  const [a, lda, b, ldb, y, ldy, m, k, n, strip] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const code = new Code(10);
  const c0 = code.local(I32);
  const width = code.local(I32);
  const p = code.local(I32);
  const i = code.local(I32);
  const j = code.local(I32);
  const arow = code.local(I32);
  const yrow = code.local(I32);
  const b0 = code.local(I32);
  const b1 = code.local(I32);
  const b2 = code.local(I32);
  const b3 = code.local(I32);
  const at = code.local(I32);
  const s0 = code.local(V128);
  const s1 = code.local(V128);
  const s2 = code.local(V128);
  const s3 = code.local(V128);
  const bytes = code.local(I32);
  code.get(n).i32(2).i32Shl().set(bytes);
  code.i32(0).set(c0);
  code.block().loop();
  code.get(c0).get(bytes).i32GeS().brIf(1);
  // width = min(strip, bytes - c0)
  code.get(strip).get(bytes).get(c0).i32Sub().get(strip).get(bytes).get(c0).i32Sub().i32LtS().select().set(width);
  // Y strip = 0
  code.i32(0).set(i);
  code.get(y).get(c0).i32Add().set(yrow);
  code.block().loop();
  code.get(i).get(m).i32GeS().brIf(1);
  code.i32(0).set(j);
  code.block().loop();
  code.get(j).get(width).i32GeS().brIf(1);
  code.get(yrow).get(j).i32Add().f32x4Const(0).v128Store();
  code.get(j).i32(16).i32Add().set(j);
  code.br(0).end().end();
  code.get(yrow).get(ldy).i32Add().set(yrow);
  code.get(i).i32(1).i32Add().set(i);
  code.br(0).end().end();
  // four rows of B at a time
  code.i32(0).set(p);
  code.get(b).get(c0).i32Add().set(b0);
  code.block().loop();
  code.get(p).i32(4).i32Add().get(k).i32GtS().brIf(1);
  code.get(b0).get(ldb).i32Add().set(b1);
  code.get(b1).get(ldb).i32Add().set(b2);
  code.get(b2).get(ldb).i32Add().set(b3);
  code.i32(0).set(i);
  code.get(a).get(p).i32(2).i32Shl().i32Add().set(arow);
  code.get(y).get(c0).i32Add().set(yrow);
  code.block().loop();
  code.get(i).get(m).i32GeS().brIf(1);
  code.get(arow).v128Load32Splat().set(s0);
  code.get(arow).v128Load32Splat(4).set(s1);
  code.get(arow).v128Load32Splat(8).set(s2);
  code.get(arow).v128Load32Splat(12).set(s3);
  code.i32(0).set(j);
  code.block().loop();
  code.get(j).get(width).i32GeS().brIf(1);
  code.get(yrow).get(j).i32Add().tee(at);
  code.get(at).v128Load();
  code.get(s0).get(b0).get(j).i32Add().v128Load().f32x4Mul();
  code.get(s1).get(b1).get(j).i32Add().v128Load().f32x4Mul().f32x4Add();
  code.get(s2).get(b2).get(j).i32Add().v128Load().f32x4Mul();
  code.get(s3).get(b3).get(j).i32Add().v128Load().f32x4Mul().f32x4Add();
  code.f32x4Add().f32x4Add().v128Store();
  code.get(j).i32(16).i32Add().set(j);
  code.br(0).end().end();
  code.get(arow).get(lda).i32Add().set(arow);
  code.get(yrow).get(ldy).i32Add().set(yrow);
  code.get(i).i32(1).i32Add().set(i);
  code.br(0).end().end();
  code.get(b3).get(ldb).i32Add().set(b0);
  code.get(p).i32(4).i32Add().set(p);
  code.br(0).end().end();
  // the k % 4 last rows of B one at a time
  code.block().loop();
  code.get(p).get(k).i32GeS().brIf(1);
  code.i32(0).set(i);
  code.get(a).get(p).i32(2).i32Shl().i32Add().set(arow);
  code.get(y).get(c0).i32Add().set(yrow);
  code.block().loop();
  code.get(i).get(m).i32GeS().brIf(1);
  code.get(arow).v128Load32Splat().set(s0);
  code.i32(0).set(j);
  code.block().loop();
  code.get(j).get(width).i32GeS().brIf(1);
  code.get(yrow).get(j).i32Add().tee(at);
  code.get(at).v128Load();
  code.get(s0).get(b0).get(j).i32Add().v128Load().f32x4Mul().f32x4Add().v128Store();
  code.get(j).i32(16).i32Add().set(j);
  code.br(0).end().end();
  code.get(arow).get(lda).i32Add().set(arow);
  code.get(yrow).get(ldy).i32Add().set(yrow);
  code.get(i).i32(1).i32Add().set(i);
  code.br(0).end().end();
  code.get(b0).get(ldb).i32Add().set(b0);
  code.get(p).i32(1).i32Add().set(p);
  code.br(0).end().end();
  code.get(c0).get(strip).i32Add().set(c0);
  code.br(0).end().end();
  return { name: 'gemvColumns', params: [I32, I32, I32, I32, I32, I32, I32, I32, I32, I32], results: [], code };
}

export interface GemvColumnsExports {
  gemvColumns(a: number, lda: number, b: number, ldb: number, y: number, ldy: number, m: number, k: number, n: number, strip: number): void;
}

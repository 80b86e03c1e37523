import { Code, type FunctionDef, I32, V128 } from './emitter.js';

/**
 * Generates `gemm(M, N, K, A, lda, B, ldb, C, ldc, accumulate)`: C[M×n] (+)= A[M×K] · B[K×n] for
 * the first n = N rounded down to a multiple of 4 columns (the caller finishes the tail). A, B, C are
 * byte addresses of row-major float32 matrices; lda/ldb/ldc are row strides in elements.
 *
 * Register-blocked micro-kernels of 4 rows × 8 columns (8 v128 accumulators), with 1-row and
 * 4-column variants for the edges. B is read row by row inside a column panel, so a K×8 panel stays
 * in L1 while all row blocks of A stream past it. (Packed B panels go to `gemmTile`.)
 */
export function gemmFunction(useFma: boolean): FunctionDef {
  const P = { M: 0, N: 1, K: 2, A: 3, lda: 4, B: 5, ldb: 6, C: 7, ldc: 8, accumulate: 9 } as const;
  const code = new Code(10);
  const i = code.local(I32);
  const j = code.local(I32);
  const k = code.local(I32);
  const pb = code.local(I32);
  const pc = code.local(I32);
  const pa = [code.local(I32), code.local(I32), code.local(I32), code.local(I32)];
  const acc = Array.from({ length: 8 }, () => code.local(V128));
  const b = [code.local(V128), code.local(V128)];
  const a = code.local(V128);

  /** One tile of `rows` rows × `vecs` v128 columns at (i, j). */
  const tile = (rows: number, vecs: number): void => {
    for (let r = 0; r < rows; r++)
      for (let c = 0; c < vecs; c++)
        code
          .f32(0)
          .f32x4Splat()
          .set(acc[r * 2 + c] as number);
    // pa[r] = A + (i + r) * lda * 4
    for (let r = 0; r < rows; r++) {
      code
        .get(P.A)
        .get(i)
        .i32(r)
        .i32Add()
        .get(P.lda)
        .i32Mul()
        .i32(2)
        .i32Shl()
        .i32Add()
        .set(pa[r] as number);
    }
    // column j of row 0
    code.get(P.B).get(j).i32(2).i32Shl().i32Add().set(pb);
    code.get(P.K).set(k);
    code.block().loop();
    code.get(k).i32Eqz().brIf(1);
    for (let c = 0; c < vecs; c++)
      code
        .get(pb)
        .v128Load(c * 16)
        .set(b[c] as number);
    for (let r = 0; r < rows; r++) {
      code
        .get(pa[r] as number)
        .v128Load32Splat()
        .set(a);
      code
        .get(pa[r] as number)
        .i32(4)
        .i32Add()
        .set(pa[r] as number);
      for (let c = 0; c < vecs; c++) {
        const accumulator = acc[r * 2 + c] as number;
        if (useFma)
          code
            .get(a)
            .get(b[c] as number)
            .get(accumulator)
            .f32x4RelaxedMadd()
            .set(accumulator);
        else
          code
            .get(accumulator)
            .get(a)
            .get(b[c] as number)
            .f32x4Mul()
            .f32x4Add()
            .set(accumulator);
      }
    }
    code.get(pb).get(P.ldb).i32(2).i32Shl().i32Add().set(pb);
    code.get(k).i32(1).i32Sub().set(k);
    code.br(0).end().end();
    // store (optionally accumulating into C)
    for (let r = 0; r < rows; r++) {
      code.get(P.C).get(i).i32(r).i32Add().get(P.ldc).i32Mul().get(j).i32Add().i32(2).i32Shl().i32Add().set(pc);
      for (let c = 0; c < vecs; c++) {
        const accumulator = acc[r * 2 + c] as number;
        code
          .get(P.accumulate)
          .if()
          .get(accumulator)
          .get(pc)
          .v128Load(c * 16)
          .f32x4Add()
          .set(accumulator)
          .end();
        code
          .get(pc)
          .get(accumulator)
          .v128Store(c * 16);
      }
    }
  };

  /** for j over column panels of `vecs`×4 columns: row blocks of 4, then single rows. */
  const panels = (vecs: number): void => {
    const width = vecs * 4;
    code.block().loop();
    code.get(j).i32(width).i32Add().get(P.N).i32GtS().brIf(1);
    code.i32(0).set(i);
    code.block().loop();
    code.get(i).i32(4).i32Add().get(P.M).i32GtS().brIf(1);
    tile(4, vecs);
    code.get(i).i32(4).i32Add().set(i);
    code.br(0).end().end();
    code.block().loop();
    code.get(i).get(P.M).i32GeS().brIf(1);
    tile(1, vecs);
    code.get(i).i32(1).i32Add().set(i);
    code.br(0).end().end();
    code.get(j).i32(width).i32Add().set(j);
    code.br(0).end().end();
  };

  code.i32(0).set(j);
  panels(2);
  panels(1);
  return { name: 'gemm', params: [I32, I32, I32, I32, I32, I32, I32, I32, I32, I32], results: [], code };
}

import { Code, F32, type FunctionDef, I32, V128 } from './emitter.js';

/**
 * Rows of A per register tile. Measured on V8 11.3 / x64 (tools/bench/src/gemm-tile-blocks.ts):
 * 4×8 runs about 1.6× faster than 5×8 or 6×8, also with A packed so one pointer feeds every row:
 * more accumulators spill (x64 has 16 xmm registers, one of them V8's scratch, and mul+add needs
 * a temporary).
 */
export const GEMM_ROW_BLOCK = 4;

/** Flags of `gemmTile`. */
export const GEMM_ACCUMULATE = 1;
/** Add bias[row] when storing (the last K block). */
export const GEMM_BIAS = 2;
/** Clamp to [lo, hi] when storing (Relu, Clip fused into the last K block). */
export const GEMM_CLAMP = 4;

/**
 * Walks a blocked GEMM over rows [m0, m1) of A: K in blocks of `kc`, rows in blocks of `mc`.
 * `block(rows, kc, pc, mc, flags)` gets the flags of its place: accumulate after the first K block,
 * `last` (bias, clamp) on the final one.
 */
export function forEachGemmBlock(
  K: number,
  kBlock: number,
  m0: number,
  m1: number,
  mBlock: number,
  last: number,
  block: (rows: number, kc: number, pc: number, mc: number, flags: number) => void,
): void {
  for (let pc = 0; pc < K; pc += kBlock) {
    const kc = Math.min(kBlock, K - pc);
    const flags = (pc > 0 ? GEMM_ACCUMULATE : 0) | (pc + kc >= K ? last : 0);
    for (let mc = m0; mc < m1; mc += mBlock) block(Math.min(mBlock, m1 - mc), kc, pc, mc, flags);
  }
}

/**
 * Generates `gemmTile(M, N, K, A, lda, B, bStride, C, ldc, flags, bias, lo, hi, tmp)`:
 * C[M×N] (+)= A[M×K] · B[K×N], then optionally C += bias[row] and C = clamp(C, lo, hi).
 *
 * A and C are row-major float32 (row strides lda/ldc in elements). B is packed: panels of 8
 * columns, panel p at byte B + p·bStride, holding K rows of 8 floats (so a K-block of a wider
 * packed matrix is just an offset and a stride). Any M and N: the last panel's valid columns are
 * stored through `tmp` (32 scratch bytes), so nothing outside C[M×N] is written.
 *
 * With `indirect`, generates `gemmIndirect` instead: B is not packed but read in place, column j of
 * row k at byte B + (j + table[k])·4 where `table` (passed as bStride) holds K int32 element
 * offsets: a stride-1 convolution reads its input rows directly (no im2col); columns past N may be
 * read (not stored), so B needs 7 floats of slack after its last row.
 *
 * Loop order: one B panel (K×8, meant to fit L1) against every `rowBlock`-row block of A, with a
 * `rowBlock`×8 register tile (2·rowBlock v128 accumulators); the caller blocks K and M so A's block stays in L2.
 */
export function gemmTileFunction(useFma: boolean, indirect = false, rowBlock = GEMM_ROW_BLOCK): FunctionDef {
  const P = { M: 0, N: 1, K: 2, A: 3, lda: 4, B: 5, bStride: 6, C: 7, ldc: 8, flags: 9, bias: 10, lo: 11, hi: 12, tmp: 13 } as const;
  const code = new Code(14);
  const i = code.local(I32);
  const j = code.local(I32);
  const k = code.local(I32);
  const pb = code.local(I32);
  const src = code.local(I32);
  const panel = code.local(I32);
  const pc = code.local(I32);
  const c = code.local(I32);
  const cols = code.local(I32);
  const value = code.local(F32);
  const pa = Array.from({ length: rowBlock }, () => code.local(I32));
  const acc = Array.from({ length: rowBlock * 2 }, () => code.local(V128));
  const b = [code.local(V128), code.local(V128)];
  const a = code.local(V128);
  const v = code.local(V128);

  const tile = (rows: number): void => {
    for (let q = 0; q < rows * 2; q++)
      code
        .f32(0)
        .f32x4Splat()
        .set(acc[q] as number);
    for (let q = 0; q < rows; q++)
      code
        .get(P.A)
        .get(i)
        .i32(q)
        .i32Add()
        .get(P.lda)
        .i32Mul()
        .i32(2)
        .i32Shl()
        .i32Add()
        .set(pa[q] as number);
    code.get(P.K).set(k);
    // packed: pb walks the panel; indirect: pb walks the row table and src = panel + table[k]·4
    code.get(indirect ? P.bStride : panel).set(pb);
    // one k-step per iteration: unrolling measured slower (V8 spills the extra live values)
    code.block().loop();
    code.get(k).i32Eqz().brIf(1);
    if (indirect) {
      code.get(panel).get(pb).i32Load().i32(2).i32Shl().i32Add().set(src);
      code
        .get(src)
        .v128Load(0)
        .set(b[0] as number);
      code
        .get(src)
        .v128Load(16)
        .set(b[1] as number);
    } else {
      code
        .get(pb)
        .v128Load(0)
        .set(b[0] as number);
      code
        .get(pb)
        .v128Load(16)
        .set(b[1] as number);
    }
    for (let q = 0; q < rows; q++) {
      const p = pa[q] as number;
      code.get(p).v128Load32Splat().set(a);
      code.get(p).i32(4).i32Add().set(p);
      for (let h = 0; h < 2; h++) {
        const x = acc[q * 2 + h] as number;
        if (useFma)
          code
            .get(a)
            .get(b[h] as number)
            .get(x)
            .f32x4RelaxedMadd()
            .set(x);
        else
          code
            .get(x)
            .get(a)
            .get(b[h] as number)
            .f32x4Mul()
            .f32x4Add()
            .set(x);
      }
    }
    code
      .get(pb)
      .i32(indirect ? 4 : 32)
      .i32Add()
      .set(pb);
    code.get(k).i32(1).i32Sub().set(k);
    code.br(0).end().end();

    // whole panel: vector stores straight into C
    code.get(cols).i32(8).i32Eq().if();
    for (let q = 0; q < rows; q++) {
      code.get(P.C).get(i).i32(q).i32Add().get(P.ldc).i32Mul().get(j).i32Add().i32(2).i32Shl().i32Add().set(pc);
      for (let h = 0; h < 2; h++) {
        const x = acc[q * 2 + h] as number;
        code.get(x).set(v);
        code
          .get(P.flags)
          .i32(GEMM_ACCUMULATE)
          .i32And()
          .if()
          .get(v)
          .get(pc)
          .v128Load(h * 16)
          .f32x4Add()
          .set(v)
          .end();
        code.get(P.flags).i32(GEMM_BIAS).i32And().if();
        code.get(v).get(P.bias).get(i).i32(q).i32Add().i32(2).i32Shl().i32Add().v128Load32Splat().f32x4Add().set(v);
        code.end();
        code.get(P.flags).i32(GEMM_CLAMP).i32And().if();
        code.get(v).get(P.lo).f32x4Splat().f32x4Max().get(P.hi).f32x4Splat().f32x4Min().set(v);
        code.end();
        code
          .get(pc)
          .get(v)
          .v128Store(h * 16);
      }
    }
    code.else();
    // last, partial panel: spill each row to tmp and store its valid columns one by one
    for (let q = 0; q < rows; q++) {
      for (let h = 0; h < 2; h++)
        code
          .get(P.tmp)
          .get(acc[q * 2 + h] as number)
          .v128Store(h * 16);
      code.i32(0).set(c);
      code.block().loop();
      code.get(c).get(cols).i32GeS().brIf(1);
      code.get(P.C).get(i).i32(q).i32Add().get(P.ldc).i32Mul().get(j).i32Add().get(c).i32Add().i32(2).i32Shl().i32Add().set(pc);
      code.get(P.tmp).get(c).i32(2).i32Shl().i32Add().f32Load().set(value);
      code.get(P.flags).i32(GEMM_ACCUMULATE).i32And().if().get(value).get(pc).f32Load().f32Add().set(value).end();
      code.get(P.flags).i32(GEMM_BIAS).i32And().if();
      code.get(value).get(P.bias).get(i).i32(q).i32Add().i32(2).i32Shl().i32Add().f32Load().f32Add().set(value);
      code.end();
      code.get(P.flags).i32(GEMM_CLAMP).i32And().if();
      code.get(value).get(P.lo).f32Max().get(P.hi).f32Min().set(value);
      code.end();
      code.get(pc).get(value).f32Store();
      code.get(c).i32(1).i32Add().set(c);
      code.br(0).end().end();
    }
    code.end();
  };

  code.i32(0).set(j);
  code.get(P.B).set(panel);
  code.block().loop();
  code.get(j).get(P.N).i32GeS().brIf(1);
  // cols = min(8, N - j)
  code.get(P.N).get(j).i32Sub().set(cols);
  code.get(cols).i32(8).i32GtS().if().i32(8).set(cols).end();
  code.i32(0).set(i);
  code.block().loop();
  code.get(i).i32(rowBlock).i32Add().get(P.M).i32GtS().brIf(1);
  tile(rowBlock);
  code.get(i).i32(rowBlock).i32Add().set(i);
  code.br(0).end().end();
  // a 4-row tile for most of the rest (blocks of 4·k rows are common), then single rows
  if (rowBlock > 4) {
    code.get(i).i32(4).i32Add().get(P.M).i32LeS().if();
    tile(4);
    code.get(i).i32(4).i32Add().set(i);
    code.end();
  }
  code.block().loop();
  code.get(i).get(P.M).i32GeS().brIf(1);
  tile(1);
  code.get(i).i32(1).i32Add().set(i);
  code.br(0).end().end();
  code.get(j).i32(8).i32Add().set(j);
  if (indirect) code.get(panel).i32(32).i32Add().set(panel);
  else code.get(panel).get(P.bStride).i32Add().set(panel);
  code.br(0).end().end();
  return {
    name: indirect ? 'gemmIndirect' : 'gemmTile',
    params: [I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, F32, F32, I32],
    results: [],
    code,
  };
}

import type { LinearMemory } from '@tsge/metadef';
import { Code, F32, type FunctionDef, I32, V128 } from './emitter.js';
import { extraModule } from './extra-modules.js';
import { hasRelaxedSimd } from './kernel-modules.js';
import { GEMM_BIAS, GEMM_CLAMP } from './gemm-tile-module.js';

/** Bytes of `pointwise`'s work area before the packed weights: the edge tile, then one B panel. */
export function pointwiseWorkBytes(M: number, K: number): number {
  return 64 + K * 32 + M * K * 4;
}

/**
 * Generates `pointwise(M, N, K, A, X, plane, C, ldc, flags, bias, lo, hi, work)`: a pointwise
 * convolution on NCHW planes, C[m][j] = Σk A[m][k]·X[k][j] (+ bias[m], clamped to [lo, hi] with
 * GEMM_BIAS / GEMM_CLAMP), for M rows and N columns, the whole K at once.
 *
 * A holds the weights packed by `packPointwiseWeights` (blocks of 4 rows interleaved per k, then
 * the remaining rows one after another), so one pointer feeds the 4×8 register tile. X is read in
 * place: input channel k starts `plane` floats after channel k−1 (row stride ldc of C likewise).
 * Every 8-column panel of X is first copied to the work area: planes a power of two apart map to
 * the same L1 sets, and reading K of them once per 4-row block (as gemmIndirect does) misses L1
 * on every load; the copy is read from L1 by all blocks. `work` needs `pointwiseWorkBytes(M, K)`
 * bytes (64-byte aligned); the packed weights start at work + 64 + K·32.
 */
export function pointwiseFunction(useFma: boolean): FunctionDef {
  const P = { M: 0, N: 1, K: 2, A: 3, X: 4, plane: 5, C: 6, ldc: 7, flags: 8, bias: 9, lo: 10, hi: 11, work: 12 } as const;
  const code = new Code(13);
  const i = code.local(I32);
  const j = code.local(I32);
  const cols = code.local(I32);
  const src = code.local(I32);
  const pb = code.local(I32);
  const pa = code.local(I32);
  const end = code.local(I32);
  const pc = code.local(I32);
  const c = code.local(I32);
  const panel = code.local(I32);
  const rest = code.local(I32);
  const acc = Array.from({ length: 8 }, () => code.local(V128));
  const b = [code.local(V128), code.local(V128)];
  const a = code.local(V128);
  const lo = code.local(V128);
  const hi = code.local(V128);

  const madd = (x: number, h: number): void => {
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
  };

  // the register tile of `rows` rows (4: A interleaved, 1: a plain row) at column j
  const tile = (rows: number): void => {
    for (let q = 0; q < rows; q++)
      for (let h = 0; h < 2; h++) {
        code.get(P.flags).i32(GEMM_BIAS).i32And().if();
        code.get(P.bias).get(i).i32(q).i32Add().i32(2).i32Shl().i32Add().v128Load32Splat();
        code.set(acc[q * 2 + h] as number);
        code
          .else()
          .f32(0)
          .f32x4Splat()
          .set(acc[q * 2 + h] as number)
          .end();
      }
    code.get(panel).set(pb);
    code.block().loop();
    code.get(pb).get(end).i32GeU().brIf(1);
    code
      .get(pb)
      .v128Load(0)
      .set(b[0] as number);
    code
      .get(pb)
      .v128Load(16)
      .set(b[1] as number);
    for (let q = 0; q < rows; q++) {
      code
        .get(pa)
        .v128Load32Splat(q * 4)
        .set(a);
      madd(acc[q * 2] as number, 0);
      madd(acc[q * 2 + 1] as number, 1);
    }
    code
      .get(pa)
      .i32(rows * 4)
      .i32Add()
      .set(pa);
    code.get(pb).i32(32).i32Add().set(pb);
    code.br(0).end().end();

    const clamp = (x: number): void => {
      code.get(P.flags).i32(GEMM_CLAMP).i32And().if();
      code.get(x).get(lo).f32x4Max().get(hi).f32x4Min().set(x);
      code.end();
    };
    code.get(cols).i32(8).i32Eq().if();
    for (let q = 0; q < rows; q++) {
      code.get(P.C).get(i).i32(q).i32Add().get(P.ldc).i32Mul().get(j).i32Add().i32(2).i32Shl().i32Add().set(pc);
      for (let h = 0; h < 2; h++) {
        const x = acc[q * 2 + h] as number;
        clamp(x);
        code
          .get(pc)
          .get(x)
          .v128Store(h * 16);
      }
    }
    code.else();
    // the last, partial panel: through the work area's first 32 bytes, valid columns only
    for (let q = 0; q < rows; q++) {
      for (let h = 0; h < 2; h++) {
        const x = acc[q * 2 + h] as number;
        clamp(x);
        code
          .get(P.work)
          .get(x)
          .v128Store(h * 16);
      }
      code.i32(0).set(c);
      code.block().loop();
      code.get(c).get(cols).i32GeS().brIf(1);
      code.get(P.C).get(i).i32(q).i32Add().get(P.ldc).i32Mul().get(j).i32Add().get(c).i32Add().i32(2).i32Shl().i32Add();
      code.get(P.work).get(c).i32(2).i32Shl().i32Add().f32Load().f32Store();
      code.get(c).i32(1).i32Add().set(c);
      code.br(0).end().end();
    }
    code.end();
  };

  code.get(P.lo).f32x4Splat().set(lo);
  code.get(P.hi).f32x4Splat().set(hi);
  code.get(P.work).i32(64).i32Add().set(panel);
  code.get(panel).get(P.K).i32(5).i32Shl().i32Add().set(end);
  // rows of A past the last block of 4 start here
  code.get(P.A).get(P.M).i32(-4).i32And().get(P.K).i32Mul().i32(2).i32Shl().i32Add().set(rest);
  code.i32(0).set(j);
  code.block().loop();
  code.get(j).get(P.N).i32GeS().brIf(1);
  code.get(P.N).get(j).i32Sub().set(cols);
  code.get(cols).i32(8).i32GtS().if().i32(8).set(cols).end();
  // copy X's panel (K rows of `cols` floats) to the work area
  code.get(P.X).get(j).i32(2).i32Shl().i32Add().set(src);
  code.get(panel).set(pb);
  code.get(cols).i32(8).i32Eq().if();
  code.block().loop();
  code.get(pb).get(end).i32GeU().brIf(1);
  code.get(pb).get(src).v128Load(0).v128Store(0);
  code.get(pb).get(src).v128Load(16).v128Store(16);
  code.get(src).get(P.plane).i32(2).i32Shl().i32Add().set(src);
  code.get(pb).i32(32).i32Add().set(pb);
  code.br(0).end().end();
  code.else();
  code.block().loop();
  code.get(pb).get(end).i32GeU().brIf(1);
  code.i32(0).set(c);
  code.block().loop();
  code.get(c).get(cols).i32GeS().brIf(1);
  code.get(pb).get(c).i32(2).i32Shl().i32Add().get(src).get(c).i32(2).i32Shl().i32Add().f32Load().f32Store();
  code.get(c).i32(1).i32Add().set(c);
  code.br(0).end().end();
  code.get(src).get(P.plane).i32(2).i32Shl().i32Add().set(src);
  code.get(pb).i32(32).i32Add().set(pb);
  code.br(0).end().end();
  code.end();

  code.i32(0).set(i);
  code.get(P.A).set(pa);
  code.block().loop();
  code.get(i).i32(4).i32Add().get(P.M).i32GtS().brIf(1);
  tile(4);
  code.get(i).i32(4).i32Add().set(i);
  code.br(0).end().end();
  code.get(rest).set(pa);
  code.block().loop();
  code.get(i).get(P.M).i32GeS().brIf(1);
  tile(1);
  code.get(i).i32(1).i32Add().set(i);
  code.br(0).end().end();
  code.get(j).i32(8).i32Add().set(j);
  code.br(0).end().end();
  return {
    name: 'pointwise',
    params: [I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, F32, F32, I32],
    results: [],
    code,
  };
}

/**
 * Packs rows [0, M) of a row-major M×K weight matrix for `pointwise`: blocks of 4 rows with the 4
 * values of each k together, then the remaining rows as they are.
 */
export function packPointwiseWeights(w: Float32Array, M: number, K: number, out: Float32Array): void {
  const blocks = M >> 2;
  for (let blk = 0; blk < blocks; blk++)
    for (let k = 0; k < K; k++) for (let q = 0; q < 4; q++) out[(blk * K + k) * 4 + q] = w[(blk * 4 + q) * K + k] as number;
  out.set(w.subarray(blocks * 4 * K, M * K), blocks * 4 * K);
}

type Pointwise = (...args: number[]) => void;
const pointwiseExports = extraModule('pointwise', () => [pointwiseFunction(hasRelaxedSimd())]);

/** The `pointwise` kernel instantiated over `memory`; undefined without WebAssembly SIMD. */
export function pointwiseKernel(memory: LinearMemory): Pointwise | undefined {
  return pointwiseExports(memory)?.pointwise as Pointwise | undefined;
}

import { Code, type FunctionDef, I32, V128 } from './emitter.js';

/** Rows of K taken per step: each has its own pair of accumulators, so the adds do not wait on each other. */
const K_UNROLL = 4;

/**
 * Generates `gemvPanels(a, lda, b, panelBytes, y, ldy, m, k, panels)`: Y[m×8·panels] = A[m×k]·B for
 * the few rows of a decode step, with B packed in panels of 8 columns (panel q at b + q·panelBytes,
 * k rows of 8 floats; byte addresses and strides). Each panel streams once from memory, front to
 * back, for the first row of A (the later rows find it in L2); 2·K_UNROLL accumulators stay in
 * registers for the whole of K and Y is stored once, so the only memory traffic is B itself.
 */
export function gemvPanelsFunction(useFma: boolean): FunctionDef {
  const [a, lda, b, panelBytes, y, ldy, m, k, panels] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const code = new Code(9);
  const q = code.local(I32);
  const i = code.local(I32);
  const p = code.local(I32);
  const pb = code.local(I32);
  const pa = code.local(I32);
  const panel = code.local(I32);
  const arow = code.local(I32);
  const yat = code.local(I32);
  const end = code.local(I32);
  const s = code.local(V128);
  const acc = Array.from({ length: 2 * K_UNROLL }, () => code.local(V128));
  const madd = (x: number, bOffset: number) => {
    if (useFma) code.get(s).get(pb).v128Load(bOffset).get(x).f32x4RelaxedMadd().set(x);
    else code.get(x).get(s).get(pb).v128Load(bOffset).f32x4Mul().f32x4Add().set(x);
  };
  // end = k rounded down to K_UNROLL
  code.get(k).i32(-K_UNROLL).i32And().set(end);
  code.i32(0).set(q);
  code.get(b).set(panel);
  code.get(y).set(yat);
  code.block().loop();
  code.get(q).get(panels).i32GeS().brIf(1);
  code.i32(0).set(i);
  code.get(a).set(arow);
  code.block().loop();
  code.get(i).get(m).i32GeS().brIf(1);
  for (const x of acc) code.f32x4Const(0).set(x);
  code.get(panel).set(pb);
  code.get(arow).set(pa);
  code.i32(0).set(p);
  code.block().loop();
  code.get(p).get(end).i32GeS().brIf(1);
  for (let u = 0; u < K_UNROLL; u++) {
    code
      .get(pa)
      .v128Load32Splat(4 * u)
      .set(s);
    madd(acc[2 * u] as number, 32 * u);
    madd(acc[2 * u + 1] as number, 32 * u + 16);
  }
  code
    .get(pa)
    .i32(4 * K_UNROLL)
    .i32Add()
    .set(pa);
  code
    .get(pb)
    .i32(32 * K_UNROLL)
    .i32Add()
    .set(pb);
  code.get(p).i32(K_UNROLL).i32Add().set(p);
  code.br(0).end().end();
  // the k % K_UNROLL last rows of the panel
  code.block().loop();
  code.get(p).get(k).i32GeS().brIf(1);
  code.get(pa).v128Load32Splat().set(s);
  madd(acc[0] as number, 0);
  madd(acc[1] as number, 16);
  code.get(pa).i32(4).i32Add().set(pa);
  code.get(pb).i32(32).i32Add().set(pb);
  code.get(p).i32(1).i32Add().set(p);
  code.br(0).end().end();
  for (let h = 0; h < 2; h++) {
    code.get(yat).get(i).get(ldy).i32Mul().i32Add();
    code.get(acc[h] as number);
    for (let u = 1; u < K_UNROLL; u++) code.get(acc[2 * u + h] as number).f32x4Add();
    code.v128Store(16 * h);
  }
  code.get(arow).get(lda).i32Add().set(arow);
  code.get(i).i32(1).i32Add().set(i);
  code.br(0).end().end();
  code.get(panel).get(panelBytes).i32Add().set(panel);
  code.get(yat).i32(32).i32Add().set(yat);
  code.get(q).i32(1).i32Add().set(q);
  code.br(0).end().end();
  return { name: 'gemvPanels', params: [I32, I32, I32, I32, I32, I32, I32, I32, I32], results: [], code };
}

export interface GemvPanelsExports {
  gemvPanels(a: number, lda: number, b: number, panelBytes: number, y: number, ldy: number, m: number, k: number, panels: number): void;
}

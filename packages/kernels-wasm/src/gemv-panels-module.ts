import { Code, type FunctionDef, I32, V128 } from './emitter.js';

/**
 * Panels streamed side by side, each with its own pair of accumulators. One sequential stream per
 * core reads at ~8 GB/s here (as many cache lines in flight as one stream gets); four streams at
 * once read at the rate the row-major column GEMV gets from its four rows of B.
 */
const GROUP = 4;
/** Rows of K per step for the panels left over (one panel, four pairs of accumulators). */
const K_UNROLL = 4;

/**
 * Generates `gemvPanels(a, lda, b, panelBytes, y, ldy, m, k, panels)`: Y[m×8·panels] = A[m×k]·B for
 * the few rows of a decode step, with B packed in panels of 8 columns (panel q at b + q·panelBytes,
 * k rows of 8 floats; byte addresses and strides). GROUP panels stream at once, front to back, for
 * the first row of A (the later rows find them in L2); the accumulators stay in registers for the
 * whole of K and Y is stored once, so the only memory traffic is B itself.
 */
export function gemvPanelsFunction(useFma: boolean): FunctionDef {
  const [a, lda, b, panelBytes, y, ldy, m, k, panels] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const code = new Code(9);
  const q = code.local(I32);
  const i = code.local(I32);
  const p = code.local(I32);
  const pa = code.local(I32);
  const panel = code.local(I32);
  const arow = code.local(I32);
  const yat = code.local(I32);
  const end = code.local(I32);
  const s = code.local(V128);
  const pb = Array.from({ length: GROUP }, () => code.local(I32));
  const acc = Array.from({ length: 2 * Math.max(GROUP, K_UNROLL) }, () => code.local(V128));
  const madd = (x: number, ptr: number, bOffset: number) => {
    if (useFma) code.get(s).get(ptr).v128Load(bOffset).get(x).f32x4RelaxedMadd().set(x);
    else code.get(x).get(s).get(ptr).v128Load(bOffset).f32x4Mul().f32x4Add().set(x);
  };
  /** Panels q.. q+group-1 for every row of A; `unroll` rows of K per step (group 1 only). */
  const panelsLoop = (group: number, unroll: number) => {
    code.block().loop();
    code.get(q).i32(group).i32Add().get(panels).i32GtS().brIf(1);
    code.i32(0).set(i);
    code.get(a).set(arow);
    code.block().loop();
    code.get(i).get(m).i32GeS().brIf(1);
    const used = acc.slice(0, 2 * group * unroll);
    for (const x of used) code.f32x4Const(0).set(x);
    code.get(panel).set(pb[0] as number);
    for (let g = 1; g < group; g++)
      code
        .get(pb[g - 1] as number)
        .get(panelBytes)
        .i32Add()
        .set(pb[g] as number);
    code.get(arow).set(pa);
    code.i32(0).set(p);
    code.get(k).i32(-unroll).i32And().set(end);
    const step = (rows: number) => {
      for (let u = 0; u < rows; u++) {
        code
          .get(pa)
          .v128Load32Splat(4 * u)
          .set(s);
        for (let g = 0; g < group; g++)
          for (let h = 0; h < 2; h++) madd(acc[2 * (g * unroll + u) + h] as number, pb[g] as number, 32 * u + 16 * h);
      }
      code
        .get(pa)
        .i32(4 * rows)
        .i32Add()
        .set(pa);
      for (let g = 0; g < group; g++)
        code
          .get(pb[g] as number)
          .i32(32 * rows)
          .i32Add()
          .set(pb[g] as number);
      code.get(p).i32(rows).i32Add().set(p);
    };
    code.block().loop();
    code.get(p).get(end).i32GeS().brIf(1);
    step(unroll);
    code.br(0).end().end();
    if (unroll > 1) {
      // the k % unroll last rows of the panel
      code.block().loop();
      code.get(p).get(k).i32GeS().brIf(1);
      step(1);
      code.br(0).end().end();
    }
    for (let g = 0; g < group; g++)
      for (let h = 0; h < 2; h++) {
        code.get(yat).get(i).get(ldy).i32Mul().i32Add();
        code.get(acc[2 * g * unroll + h] as number);
        for (let u = 1; u < unroll; u++) code.get(acc[2 * (g * unroll + u) + h] as number).f32x4Add();
        code.v128Store(32 * g + 16 * h);
      }
    code.get(arow).get(lda).i32Add().set(arow);
    code.get(i).i32(1).i32Add().set(i);
    code.br(0).end().end();
    code.get(panel).get(panelBytes).i32(group).i32Mul().i32Add().set(panel);
    code
      .get(yat)
      .i32(32 * group)
      .i32Add()
      .set(yat);
    code.get(q).i32(group).i32Add().set(q);
    code.br(0).end().end();
  };
  code.i32(0).set(q);
  code.get(b).set(panel);
  code.get(y).set(yat);
  panelsLoop(GROUP, 1);
  panelsLoop(1, K_UNROLL);
  return { name: 'gemvPanels', params: [I32, I32, I32, I32, I32, I32, I32, I32, I32], results: [], code };
}

export interface GemvPanelsExports {
  gemvPanels(a: number, lda: number, b: number, panelBytes: number, y: number, ldy: number, m: number, k: number, panels: number): void;
}

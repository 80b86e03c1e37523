import { Code, type FunctionDef, I32, type ValType } from './emitter.js';

/**
 * Generates `im2colPacked(x, col, C, slabRows, W, OW, KH, KW, sh, sw, dh, dw, pt, pl, ihLo, ihHi,
 * oh0, rows, K)`: the im2col panel of output rows [oh0, oh0+rows) of a 2-D convolution, written in
 * the packed GEMM layout (column o of row k at ((o >> 3) * K + k) * 8 + (o & 7)). `x` holds a slab of
 * the input: C channels of input rows [ihLo, ihHi) (slabRows = ihHi - ihLo), W wide; rows outside
 * the slab and columns outside [0, W) are padding and read as 0. All addresses are byte offsets in
 * one memory (the caller stages the slab there), so the copy runs in WebAssembly instead of JS.
 */
export function im2colFunction(): FunctionDef {
  const P = {
    x: 0,
    col: 1,
    C: 2,
    slabRows: 3,
    W: 4,
    OW: 5,
    KH: 6,
    KW: 7,
    sh: 8,
    sw: 9,
    dh: 10,
    dw: 11,
    pt: 12,
    pl: 13,
    ihLo: 14,
    ihHi: 15,
    oh0: 16,
    rows: 17,
    K: 18,
  } as const;
  const code = new Code(19);
  const r = code.local(I32);
  const oh = code.local(I32);
  const ow = code.local(I32);
  const c = code.local(I32);
  const kh = code.local(I32);
  const kw = code.local(I32);
  const ih = code.local(I32);
  const iw = code.local(I32);
  const xrow = code.local(I32);
  const lane = code.local(I32);
  const panel = code.local(I32);
  const dst = code.local(I32);
  const rowInside = code.local(I32);
  const panelBytes = code.local(I32);

  // panel stride in bytes: K rows × 8 floats
  code.get(P.K).i32(5).i32Shl().set(panelBytes);
  code.get(P.col).set(panel);
  code.i32(0).set(lane);
  code.i32(0).set(r);
  code.block().loop(); // output rows
  code.get(r).get(P.rows).i32GeS().brIf(1);
  code.get(P.oh0).get(r).i32Add().set(oh);
  code.i32(0).set(ow);
  code.block().loop(); // output columns
  code.get(ow).get(P.OW).i32GeS().brIf(1);
  // dst = panel + lane * 4 (row k = 0 of this column); each k row is 32 bytes further
  code.get(panel).get(lane).i32(2).i32Shl().i32Add().set(dst);
  code.i32(0).set(c);
  code.block().loop(); // channels
  code.get(c).get(P.C).i32GeS().brIf(1);
  code.i32(0).set(kh);
  code.block().loop(); // kernel rows
  code.get(kh).get(P.KH).i32GeS().brIf(1);
  code.get(oh).get(P.sh).i32Mul().get(P.pt).i32Sub().get(kh).get(P.dh).i32Mul().i32Add().set(ih);
  code.get(ih).get(P.ihLo).i32GeS().get(ih).get(P.ihHi).i32LtS().i32And().set(rowInside);
  // xrow = x + ((c * slabRows + ih - ihLo) * W) * 4
  code.get(P.x).get(c).get(P.slabRows).i32Mul().get(ih).i32Add().get(P.ihLo).i32Sub().get(P.W).i32Mul().i32(2).i32Shl().i32Add().set(xrow);
  code.i32(0).set(kw);
  code.block().loop(); // kernel columns
  code.get(kw).get(P.KW).i32GeS().brIf(1);
  code.get(ow).get(P.sw).i32Mul().get(P.pl).i32Sub().get(kw).get(P.dw).i32Mul().i32Add().set(iw);
  code.get(rowInside).get(iw).i32(0).i32GeS().i32And().get(iw).get(P.W).i32LtS().i32And();
  code.if();
  code.get(dst).get(xrow).get(iw).i32(2).i32Shl().i32Add().f32Load().f32Store();
  code.else();
  code.get(dst).f32(0).f32Store();
  code.end();
  code.get(dst).i32(32).i32Add().set(dst);
  code.get(kw).i32(1).i32Add().set(kw);
  code.br(0).end().end();
  code.get(kh).i32(1).i32Add().set(kh);
  code.br(0).end().end();
  code.get(c).i32(1).i32Add().set(c);
  code.br(0).end().end();
  // next output column: next lane, or the next panel after 8
  code.get(lane).i32(1).i32Add().set(lane);
  code.get(lane).i32(8).i32GeS();
  code.if();
  code.i32(0).set(lane);
  code.get(panel).get(panelBytes).i32Add().set(panel);
  code.end();
  code.get(ow).i32(1).i32Add().set(ow);
  code.br(0).end().end();
  code.get(r).i32(1).i32Add().set(r);
  code.br(0).end().end();
  const params: ValType[] = new Array<ValType>(19).fill(I32);
  return { name: 'im2colPacked', params, results: [], code };
}

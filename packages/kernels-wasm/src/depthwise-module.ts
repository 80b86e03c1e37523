import { Code, F32, type FunctionDef, I32, V128, type ValType } from './emitter.js';

/**
 * Generates `depthwise(x, w, y, bias, H, W, OH, OW, KH, KW, sh, sw, pt, pl, dh, dw, owLo, owHi)`:
 * one channel of a 2-D depthwise convolution, x [H×W] → y [OH×OW] with a KH×KW filter (byte
 * addresses; float32). For stride-1 columns whose whole window lies inside the row
 * (owLo ≤ ow, ow+3 ≤ owHi) four outputs are computed at once with f32x4; the rest (borders, other
 * strides) take a scalar path with bounds checks.
 */
export function depthwiseFunction(useFma: boolean): FunctionDef {
  const P = {
    x: 0,
    w: 1,
    y: 2,
    bias: 3,
    H: 4,
    W: 5,
    OH: 6,
    OW: 7,
    KH: 8,
    KW: 9,
    sh: 10,
    sw: 11,
    pt: 12,
    pl: 13,
    dh: 14,
    dw: 15,
    owLo: 16,
    owHi: 17,
  } as const;
  const code = new Code(18);
  const oh = code.local(I32);
  const ow = code.local(I32);
  const kh = code.local(I32);
  const kw = code.local(I32);
  const ih = code.local(I32);
  const iw = code.local(I32);
  const xrow = code.local(I32);
  const wrow = code.local(I32);
  const yrow = code.local(I32);
  const acc = code.local(V128);
  const sacc = code.local(F32);

  code.i32(0).set(oh);
  code.block().loop(); // rows
  code.get(oh).get(P.OH).i32GeS().brIf(1);
  code.get(P.y).get(oh).get(P.OW).i32Mul().i32(2).i32Shl().i32Add().set(yrow);
  code.i32(0).set(ow);
  code.block().loop(); // columns
  code.get(ow).get(P.OW).i32GeS().brIf(1);
  // vector path?
  code.get(P.sw).i32(1).i32Ne().get(ow).get(P.owLo).i32LtS().i32Or().get(ow).i32(3).i32Add().get(P.owHi).i32GtS().i32Or().i32Eqz();
  code.if();
  code.get(P.bias).f32x4Splat().set(acc);
  code.i32(0).set(kh);
  code.block().loop();
  code.get(kh).get(P.KH).i32GeS().brIf(1);
  code.get(oh).get(P.sh).i32Mul().get(P.pt).i32Sub().get(kh).get(P.dh).i32Mul().i32Add().set(ih);
  code.get(ih).i32(0).i32GeS().get(ih).get(P.H).i32LtS().i32And();
  code.if();
  code.get(P.x).get(ih).get(P.W).i32Mul().get(ow).i32Add().get(P.pl).i32Sub().i32(2).i32Shl().i32Add().set(xrow);
  code.get(P.w).get(kh).get(P.KW).i32Mul().i32(2).i32Shl().i32Add().set(wrow);
  code.i32(0).set(kw);
  code.block().loop();
  code.get(kw).get(P.KW).i32GeS().brIf(1);
  if (useFma) code.get(wrow).v128Load32Splat().get(xrow).v128Load().get(acc).f32x4RelaxedMadd().set(acc);
  else code.get(acc).get(wrow).v128Load32Splat().get(xrow).v128Load().f32x4Mul().f32x4Add().set(acc);
  code.get(wrow).i32(4).i32Add().set(wrow);
  code.get(xrow).get(P.dw).i32(2).i32Shl().i32Add().set(xrow);
  code.get(kw).i32(1).i32Add().set(kw);
  code.br(0).end().end();
  code.end(); // if row inside
  code.get(kh).i32(1).i32Add().set(kh);
  code.br(0).end().end();
  code.get(yrow).get(ow).i32(2).i32Shl().i32Add().get(acc).v128Store();
  code.get(ow).i32(4).i32Add().set(ow);
  code.else();
  code.get(P.bias).set(sacc);
  code.i32(0).set(kh);
  code.block().loop();
  code.get(kh).get(P.KH).i32GeS().brIf(1);
  code.get(oh).get(P.sh).i32Mul().get(P.pt).i32Sub().get(kh).get(P.dh).i32Mul().i32Add().set(ih);
  code.get(ih).i32(0).i32GeS().get(ih).get(P.H).i32LtS().i32And();
  code.if();
  code.i32(0).set(kw);
  code.block().loop();
  code.get(kw).get(P.KW).i32GeS().brIf(1);
  code.get(ow).get(P.sw).i32Mul().get(P.pl).i32Sub().get(kw).get(P.dw).i32Mul().i32Add().set(iw);
  code.get(iw).i32(0).i32GeS().get(iw).get(P.W).i32LtS().i32And();
  code.if();
  code.get(sacc);
  code.get(P.w).get(kh).get(P.KW).i32Mul().get(kw).i32Add().i32(2).i32Shl().i32Add().f32Load();
  code.get(P.x).get(ih).get(P.W).i32Mul().get(iw).i32Add().i32(2).i32Shl().i32Add().f32Load();
  code.f32Mul().f32Add().set(sacc);
  code.end();
  code.get(kw).i32(1).i32Add().set(kw);
  code.br(0).end().end();
  code.end(); // if row inside
  code.get(kh).i32(1).i32Add().set(kh);
  code.br(0).end().end();
  code.get(yrow).get(ow).i32(2).i32Shl().i32Add().get(sacc).f32Store();
  code.get(ow).i32(1).i32Add().set(ow);
  code.end(); // if/else
  code.br(0).end().end(); // columns
  code.get(oh).i32(1).i32Add().set(oh);
  code.br(0).end().end(); // rows
  const params: ValType[] = [I32, I32, I32, F32, ...new Array<ValType>(14).fill(I32)];
  return { name: 'depthwise', params, results: [], code };
}

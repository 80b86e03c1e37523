import { Code, F32, type FunctionDef, I32, V128 } from './emitter.js';
import { widen } from './int-conv-module.js';

/**
 * Per-tensor DequantizeLinear and QuantizeLinear between bytes and float32, 16 elements a step
 * (the caller finishes the n % 16 tail):
 * - `dequantizeBytes(x, y, n, zp, scale, signed)`: y = f32(x − zp) · scale, the float32 product
 *   the reference rounds to;
 * - `quantizeFloats(x, y, n, scale, zp, lo, hi, signed)`: y = clamp(nearest(x / scale), lo, hi) + zp
 *   (lo, hi: the type's range minus zp), NaN to 0 as the reference's byte store makes it.
 */
function dequantizeFunction(): FunctionDef {
  const [x, y, n, zp, scale, signed] = [0, 1, 2, 3, 4, 5];
  const code = new Code(6);
  const i = code.local(I32);
  const bytes = code.local(V128);
  const half = code.local(V128);
  const z = code.local(V128);
  const s = code.local(V128);
  code.get(zp).i16x8Splat().set(z);
  code.get(scale).f32x4Splat().set(s);
  code.i32(0).set(i);
  code.block().loop();
  code.get(i).i32(16).i32Add().get(n).i32GtS().brIf(1);
  code.get(x).get(i).i32Add().v128Load().set(bytes);
  for (const high of [false, true]) {
    code.bySign(
      () => code.get(signed),
      V128,
      (s) => widen(code.get(bytes), high, s),
    );
    code.get(z).i16x8Sub().set(half);
    for (const quarter of [0, 1]) {
      code.get(y).get(i).i32(2).i32Shl().i32Add();
      code.get(half);
      if (quarter) code.i32x4ExtendHighI16x8S();
      else code.i32x4ExtendLowI16x8S();
      code.f32x4ConvertI32x4S().get(s).f32x4Mul();
      code.v128Store((high ? 32 : 0) + quarter * 16);
    }
  }
  code.get(i).i32(16).i32Add().set(i);
  code.br(0).end().end();
  return { name: 'dequantizeBytes', params: [I32, I32, I32, I32, F32, I32], results: [], code };
}

function quantizeFunction(): FunctionDef {
  const [x, y, n, scale, zp, lo, hi, signed] = [0, 1, 2, 3, 4, 5, 6, 7];
  const code = new Code(8);
  const i = code.local(I32);
  const s = code.local(V128);
  const z = code.local(V128);
  const l = code.local(V128);
  const h = code.local(V128);
  const v = code.local(V128);
  const words = [code.local(V128), code.local(V128)];
  const halves = [code.local(V128), code.local(V128)];
  code.get(scale).f32x4Splat().set(s);
  code.get(zp).i32x4Splat().set(z);
  code.get(lo).f32x4Splat().set(l);
  code.get(hi).f32x4Splat().set(h);
  code.i32(0).set(i);
  code.block().loop();
  code.get(i).i32(16).i32Add().get(n).i32GtS().brIf(1);
  for (let q = 0; q < 4; q++) {
    code
      .get(x)
      .get(i)
      .i32(2)
      .i32Shl()
      .i32Add()
      .v128Load(q * 16)
      .get(s)
      .f32x4Div()
      .f32x4Nearest()
      .set(v);
    code.get(v).get(l).f32x4Max().get(h).f32x4Min().i32x4TruncSatF32x4S().get(z).i32x4Add();
    // NaN lanes (v ≠ v) become 0
    code
      .get(v)
      .get(v)
      .f32x4Eq()
      .v128And()
      .set(words[q & 1] as number);
    if (q & 1)
      code
        .get(words[0] as number)
        .get(words[1] as number)
        .i16x8NarrowI32x4S()
        .set(halves[q >> 1] as number);
  }
  code.get(y).get(i).i32Add();
  code.bySign(
    () => code.get(signed),
    V128,
    (s) =>
      code
        .get(halves[0] as number)
        .get(halves[1] as number)
        .i8x16NarrowI16x8(s),
  );
  code.v128Store();
  code.get(i).i32(16).i32Add().set(i);
  code.br(0).end().end();
  return { name: 'quantizeFloats', params: [I32, I32, I32, F32, I32, F32, F32, I32], results: [], code };
}

export interface QuantizeExports {
  dequantizeBytes(x: number, y: number, n: number, zp: number, scale: number, signed: number): void;
  quantizeFloats(x: number, y: number, n: number, scale: number, zp: number, lo: number, hi: number, signed: number): void;
}

export function quantizeFunctions(): FunctionDef[] {
  return [dequantizeFunction(), quantizeFunction()];
}

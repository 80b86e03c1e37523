import { Code, F32, type FunctionDef, I32, V128 } from './emitter.js';
import { widen } from './int-conv-module.js';

/**
 * Per-tensor DequantizeLinear and QuantizeLinear between bytes and float32, 16 elements a step
 * (the caller finishes the n % 16 tail):
 * - `dequantizeBytes(x, y, n, zp, scale, signed)`: y = f32(x − zp) · scale, the float32 product
 *   the reference rounds to;
 * - `quantizeFloats(x, y, n, scale, zp, lo, hi, signed)`: y = clamp(nearest(x / scale), lo, hi) + zp
 *   (lo, hi: the type's range minus zp), NaN to 0 as the reference's byte store makes it;
 * - `addBytes`, tsge::QuantizedAdd (below).
 */
/** `for (i = 0; i + 16 <= n; i += 16) body()` over locals i and n. */
function sixteenAtATime(code: Code, i: number, n: number, body: () => void): void {
  code.i32(0).set(i);
  code.block().loop();
  code.get(i).i32(16).i32Add().get(n).i32GtS().brIf(1);
  body();
  code.get(i).i32(16).i32Add().set(i);
  code.br(0).end().end();
}

/** Stores two i16x8 halves at y + i as 16 saturated bytes (int8 when local `signed` is set). */
function storeBytes(code: Code, y: number, i: number, halves: readonly number[], signed: number): void {
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
}

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
  sixteenAtATime(code, i, n, () => {
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
  });
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
  sixteenAtATime(code, i, n, () => {
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
    storeBytes(code, y, i, halves, signed);
  });
  return { name: 'quantizeFloats', params: [I32, I32, I32, F32, I32, F32, F32, I32], results: [], code };
}

/**
 * `addBytes(a, b, y, n, am, bm, bias, shift, zp, signed)`: tsge::QuantizedAdd of two byte vectors
 * of one shape, 16 elements a step: ((bias + a·am + b·bm) >> shift) + zp in i32 lanes (wrapping
 * products and sums are exact: the op's attributes keep the true sum in int32), saturated to the
 * bytes by the narrowing.
 */
function addFunction(): FunctionDef {
  const [a, b, y, n, am, bm, bias, shift, zp, signed] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const code = new Code(10);
  const i = code.local(I32);
  const va = code.local(V128);
  const vb = code.local(V128);
  const ma = code.local(V128);
  const mb = code.local(V128);
  const c = code.local(V128);
  const z = code.local(V128);
  const ha = code.local(V128);
  const hb = code.local(V128);
  const words = [code.local(V128), code.local(V128)];
  const halves = [code.local(V128), code.local(V128)];
  code.get(am).i32x4Splat().set(ma);
  code.get(bm).i32x4Splat().set(mb);
  code.get(bias).i32x4Splat().set(c);
  code.get(zp).i32x4Splat().set(z);
  sixteenAtATime(code, i, n, () => {
    code.get(a).get(i).i32Add().v128Load().set(va);
    code.get(b).get(i).i32Add().v128Load().set(vb);
    for (const high of [false, true]) {
      for (const [v, h] of [
        [va, ha],
        [vb, hb],
      ] as const)
        code
          .bySign(
            () => code.get(signed),
            V128,
            (s) => widen(code.get(v), high, s),
          )
          .set(h);
      for (const quarter of [0, 1]) {
        const ext = (h: number): void => {
          code.get(h);
          if (quarter) code.i32x4ExtendHighI16x8S();
          else code.i32x4ExtendLowI16x8S();
        };
        code.get(c);
        ext(ha);
        code.get(ma).i32x4Mul().i32x4Add();
        ext(hb);
        code.get(mb).i32x4Mul().i32x4Add();
        code
          .get(shift)
          .i32x4ShrS()
          .get(z)
          .i32x4Add()
          .set(words[quarter] as number);
      }
      code
        .get(words[0] as number)
        .get(words[1] as number)
        .i16x8NarrowI32x4S()
        .set(halves[high ? 1 : 0] as number);
    }
    storeBytes(code, y, i, halves, signed);
  });
  return { name: 'addBytes', params: Array(10).fill(I32), results: [], code };
}

export interface QuantizeExports {
  dequantizeBytes(x: number, y: number, n: number, zp: number, scale: number, signed: number): void;
  quantizeFloats(x: number, y: number, n: number, scale: number, zp: number, lo: number, hi: number, signed: number): void;
  addBytes(
    a: number,
    b: number,
    y: number,
    n: number,
    am: number,
    bm: number,
    bias: number,
    shift: number,
    zp: number,
    signed: number,
  ): void;
}

export function quantizeFunctions(): FunctionDef[] {
  return [dequantizeFunction(), quantizeFunction(), addFunction()];
}

import { Code, F32, type FunctionDef, I32, type ValType } from './emitter.js';

/** The name of the tile driver of the K×K, column stride S depthwise functions. */
export const depthwisePlanesName = (size: number, stride: number): string => `depthwise${size}s${stride}planes`;

/**
 * Generates `depthwise{K}s{S}planes(x, w, y, bias, count, H, W, OH, OW, sh, pt, pl, ws, Wr, odd)`:
 * `count` channels of a depthwise convolution (K×K filter, column stride S, row stride sh, dilation
 * 1), one wasm call for a tile (a call from JavaScript costs about as much as a short band).
 * Each H×W plane is copied to the workspace `ws` by the `pad` function (`padPlane` for S 1, rows of
 * Wr floats; `padSplit` for S 2, even and odd columns `odd` bytes apart, rows of Wr) with its
 * columns zero-padded (pl on the left) but no padding rows. Its output rows are then run in bands
 * whose windows reach the same filter rows kh ∈ [max(0, pt − oh·sh), min(K, H + pt − oh·sh)):
 * `byRows[R − 1]` (the function indices of R = 1..K filter rows) over those rows of the filter
 * and the plane; rows whose windows lie wholly in the padding get the bias. `bias` −1: none.
 */
export function depthwisePlanesFunction(size: number, stride: number, byRows: readonly number[], pad: number): FunctionDef {
  const split = stride === 2;
  const P = { x: 0, w: 1, y: 2, bias: 3, count: 4, H: 5, W: 6, OH: 7, OW: 8, sh: 9, pt: 10, pl: 11, ws: 12, Wr: 13, odd: 14 } as const;
  const code = new Code(15);
  const c = code.local(I32);
  const bv = code.local(F32);
  const wc = code.local(I32);
  const yc = code.local(I32);
  const oh = code.local(I32);
  const oh1 = code.local(I32);
  const k0 = code.local(I32);
  const k1 = code.local(I32);
  const nk0 = code.local(I32);
  const nk1 = code.local(I32);
  const first = code.local(I32);
  const rows = code.local(I32);
  const at = code.local(I32);
  const n = code.local(I32);

  /** lo, hi = the filter rows of output row `row` that reach the plane's rows. */
  const range = (row: number, lo: number, hi: number): void => {
    code.get(P.pt).get(row).get(P.sh).i32Mul().i32Sub().tee(lo).i32(0).get(lo).i32(0).i32GtS().select().set(lo);
    code.get(P.H).get(P.pt).i32Add().get(row).get(P.sh).i32Mul().i32Sub().tee(hi).i32(size).get(hi).i32(size).i32LtS().select().set(hi);
  };

  code.i32(0).set(c);
  code.block().loop(); // channels
  code.get(c).get(P.count).i32GeS().brIf(1);
  code.get(P.bias).i32(0).i32LtS().ifValue(F32).f32(0).else().get(P.bias).get(c).i32(2).i32Shl().i32Add().f32Load().end().set(bv);
  code.get(P.x).get(c).get(P.H).i32Mul().get(P.W).i32Mul().i32(2).i32Shl().i32Add();
  code.get(P.ws);
  if (split) code.get(P.odd);
  // pad(x, dst, [odd,] H, W, pt 0, pl, Hp = H, Wr)
  code.get(P.H).get(P.W).i32(0).get(P.pl).get(P.H).get(P.Wr).call(pad);
  code
    .get(P.w)
    .get(c)
    .i32(size * size * 4)
    .i32Mul()
    .i32Add()
    .set(wc);
  code.get(P.y).get(c).get(P.OH).i32Mul().get(P.OW).i32Mul().i32(2).i32Shl().i32Add().set(yc);
  code.i32(0).set(oh);
  code.block().loop(); // bands
  code.get(oh).get(P.OH).i32GeS().brIf(1);
  range(oh, k0, k1);
  code.get(oh).i32(1).i32Add().set(oh1);
  code.block().loop(); // the band's last row
  code.get(oh1).get(P.OH).i32GeS().brIf(1);
  range(oh1, nk0, nk1);
  code.get(nk0).get(k0).i32Ne().get(nk1).get(k1).i32Ne().i32Or().brIf(1);
  code.get(oh1).i32(1).i32Add().set(oh1);
  code.br(0).end().end();
  code.get(yc).get(oh).get(P.OW).i32Mul().i32(2).i32Shl().i32Add().set(at);
  code.get(k1).get(k0).i32LeS().if();
  // windows wholly in the padding
  code.get(oh1).get(oh).i32Sub().get(P.OW).i32Mul().set(n);
  code.block().loop();
  code.get(n).i32Eqz().brIf(1);
  code.get(at).get(bv).f32Store();
  code.get(at).i32(4).i32Add().set(at);
  code.get(n).i32(1).i32Sub().set(n);
  code.br(0).end().end();
  code.else();
  // the band's first window row, as a row of the padded plane
  code.get(oh).get(P.sh).i32Mul().get(k0).i32Add().get(P.pt).i32Sub().set(first);
  code.get(k1).get(k0).i32Sub().set(rows);
  for (let r = 1; r <= size; r++) {
    code.get(rows).i32(r).i32Eq().if();
    code.get(P.ws).get(first).get(P.Wr).i32Mul().i32(2).i32Shl().i32Add();
    code
      .get(wc)
      .get(k0)
      .i32(size * 4)
      .i32Mul()
      .i32Add();
    code.get(at).get(bv).get(P.H).get(first).i32Sub().get(P.Wr).get(oh1).get(oh).i32Sub().get(P.OW);
    code.i32(0).i32(0).i32(0);
    // owHi: the last output whose 4-wide step stays in the row (stride 1); the split plane's rows hold every output
    if (split) code.get(P.OW).i32(1).i32Sub();
    else
      code
        .get(P.Wr)
        .i32(8 + size)
        .i32Sub();
    code.get(P.sh).i32(1);
    if (split) code.get(P.odd);
    code.call(byRows[r - 1] as number);
    code.end();
  }
  code.end();
  code.get(oh1).set(oh);
  code.br(0).end().end(); // bands
  code.get(c).i32(1).i32Add().set(c);
  code.br(0).end().end(); // channels
  const params: ValType[] = new Array<ValType>(15).fill(I32);
  return { name: depthwisePlanesName(size, stride), params, results: [], code };
}

import { Code, F32, type FunctionDef, I32, V128, type ValType, EVEN_F32_LANES } from './emitter.js';

/**
 * Generates `im2colPanels(x, col, C, H, W, OW, KH, KW, sh, sw, dh, dw, pt, pl, o0, cols, K, tmp)`:
 * the im2col matrix of output positions [o0, o0 + cols) (flattened oh·OW + ow) of a 2-D
 * convolution over C input channels of H×W at byte address x, written packed for `gemmTile`:
 * panels of 8 positions, panel p at col + p·K·32, row (c, kh, kw) of a panel = 8 floats. Padding
 * and positions past `cols` read as 0. `tmp` is 64 scratch bytes.
 *
 * A panel whose 8 positions lie in one output row copies vectors: stride 1 as two v128 loads,
 * stride 2 as four loads and two even-lane shuffles, when the window row is inside the input; any
 * other panel (edges, rows crossing, other strides) goes element by element through a per-lane
 * table of window origins, so there is no division in the inner loops.
 */
export function im2colFunction(): FunctionDef {
  const P = {
    x: 0,
    col: 1,
    C: 2,
    H: 3,
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
    o0: 14,
    cols: 15,
    K: 16,
    tmp: 17,
  } as const;
  const code = new Code(18);
  const p = code.local(I32); // first column of the panel (relative to o0)
  const panel = code.local(I32);
  const dst = code.local(I32);
  const oh = code.local(I32);
  const ow = code.local(I32);
  const fast = code.local(I32);
  const c = code.local(I32);
  const kh = code.local(I32);
  const kw = code.local(I32);
  const ih = code.local(I32);
  const iw = code.local(I32);
  const xrow = code.local(I32);
  const lane = code.local(I32);
  const rowOk = code.local(I32);
  const src = code.local(I32);
  const zero = code.local(V128);

  /** Scalar lane fill: dst[lane] = inside ? x[(c·H + ih_l)·W + iw_l] : 0 from the lane table. */
  const scalarLanes = (): void => {
    code.i32(0).set(lane);
    code.block().loop();
    code.get(lane).i32(8).i32GeS().brIf(1);
    // ih_l = table[lane] + kh·dh, iw_l = table[8 + lane] + kw·dw
    code.get(P.tmp).get(lane).i32(2).i32Shl().i32Add().i32Load().get(kh).get(P.dh).i32Mul().i32Add().set(ih);
    code.get(P.tmp).get(lane).i32(2).i32Shl().i32Add().i32Load(32).get(kw).get(P.dw).i32Mul().i32Add().set(iw);
    code.get(dst).get(lane).i32(2).i32Shl().i32Add();
    code.get(ih).get(P.H).i32LtU().get(iw).get(P.W).i32LtU().i32And().ifValue(F32);
    code.get(P.x).get(c).get(P.H).i32Mul().get(ih).i32Add().get(P.W).i32Mul().get(iw).i32Add().i32(2).i32Shl().i32Add().f32Load();
    code.else().f32(0).end();
    code.f32Store();
    code.get(lane).i32(1).i32Add().set(lane);
    code.br(0).end().end();
  };

  code.f32(0).f32x4Splat().set(zero);
  code.i32(0).set(p);
  code.get(P.col).set(panel);
  code.block().loop(); // panels
  code.get(p).get(P.cols).i32GeS().brIf(1);
  // position of the panel's first column
  code.get(P.o0).get(p).i32Add().get(P.OW).i32DivU().set(oh);
  code.get(P.o0).get(p).i32Add().get(oh).get(P.OW).i32Mul().i32Sub().set(ow);
  // fast: 8 valid columns in one output row, stride 1 or 2
  code.get(p).i32(8).i32Add().get(P.cols).i32LeS();
  code.get(ow).i32(8).i32Add().get(P.OW).i32LeS().i32And();
  code.get(P.sw).i32(3).i32LtS().i32And().set(fast);
  // lane table: window origin row/column per lane (an out-of-range row for columns past cols)
  code.i32(0).set(lane);
  code.block().loop();
  code.get(lane).i32(8).i32GeS().brIf(1);
  code.get(p).get(lane).i32Add().get(P.cols).i32LtS().if();
  code.get(P.o0).get(p).i32Add().get(lane).i32Add().get(P.OW).i32DivU().set(ih);
  code.get(P.tmp).get(lane).i32(2).i32Shl().i32Add().get(ih).get(P.sh).i32Mul().get(P.pt).i32Sub().i32Store();
  code
    .get(P.tmp)
    .get(lane)
    .i32(2)
    .i32Shl()
    .i32Add()
    .get(P.o0)
    .get(p)
    .i32Add()
    .get(lane)
    .i32Add()
    .get(ih)
    .get(P.OW)
    .i32Mul()
    .i32Sub()
    .get(P.sw)
    .i32Mul()
    .get(P.pl)
    .i32Sub()
    .i32Store(32);
  code.else();
  code
    .get(P.tmp)
    .get(lane)
    .i32(2)
    .i32Shl()
    .i32Add()
    .i32(-1 << 30)
    .i32Store();
  code.get(P.tmp).get(lane).i32(2).i32Shl().i32Add().i32(0).i32Store(32);
  code.end();
  code.get(lane).i32(1).i32Add().set(lane);
  code.br(0).end().end();

  code.get(panel).set(dst);
  code.i32(0).set(c);
  code.block().loop(); // channels
  code.get(c).get(P.C).i32GeS().brIf(1);
  code.i32(0).set(kh);
  code.block().loop(); // kernel rows
  code.get(kh).get(P.KH).i32GeS().brIf(1);
  code.get(oh).get(P.sh).i32Mul().get(P.pt).i32Sub().get(kh).get(P.dh).i32Mul().i32Add().set(ih);
  code.get(ih).get(P.H).i32LtU().set(rowOk);
  code.get(P.x).get(c).get(P.H).i32Mul().get(ih).i32Add().get(P.W).i32Mul().i32(2).i32Shl().i32Add().set(xrow);
  code.i32(0).set(kw);
  code.block().loop(); // kernel columns
  code.get(kw).get(P.KW).i32GeS().brIf(1);
  code.get(ow).get(P.sw).i32Mul().get(P.pl).i32Sub().get(kw).get(P.dw).i32Mul().i32Add().set(iw);
  code.get(fast).if();
  code.get(rowOk).i32Eqz().if();
  code.get(dst).get(zero).v128Store(0);
  code.get(dst).get(zero).v128Store(16);
  code.else();
  // stride 1: iw ≥ 0 and iw + 8 ≤ W; stride 2: iw ≥ 0 and iw + 16 ≤ W (four whole vectors)
  code.get(iw).i32(0).i32GeS().get(iw).get(P.sw).i32(3).i32Shl().i32Add().get(P.W).i32LeS().i32And().if();
  code.get(P.sw).i32(1).i32Eq().if();
  code.get(dst).get(xrow).get(iw).i32(2).i32Shl().i32Add().v128Load(0).v128Store(0);
  code.get(dst).get(xrow).get(iw).i32(2).i32Shl().i32Add().v128Load(16).v128Store(16);
  code.else();
  code.get(xrow).get(iw).i32(2).i32Shl().i32Add().set(src);
  code.get(dst).get(src).v128Load(0).get(src).v128Load(16).i8x16Shuffle(EVEN_F32_LANES).v128Store(0);
  code.get(dst).get(src).v128Load(32).get(src).v128Load(48).i8x16Shuffle(EVEN_F32_LANES).v128Store(16);
  code.end();
  code.else();
  scalarLanes();
  code.end();
  code.end();
  code.else();
  scalarLanes();
  code.end();
  code.get(dst).i32(32).i32Add().set(dst);
  code.get(kw).i32(1).i32Add().set(kw);
  code.br(0).end().end();
  code.get(kh).i32(1).i32Add().set(kh);
  code.br(0).end().end();
  code.get(c).i32(1).i32Add().set(c);
  code.br(0).end().end();
  code.get(panel).get(P.K).i32(5).i32Shl().i32Add().set(panel);
  code.get(p).i32(8).i32Add().set(p);
  code.br(0).end().end();
  const params: ValType[] = new Array<ValType>(18).fill(I32);
  return { name: 'im2colPanels', params, results: [], code };
}

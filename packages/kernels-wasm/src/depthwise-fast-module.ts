import { Code, F32, type FunctionDef, I32, V128, type ValType, EVEN_F32_LANES, ODD_F32_LANES } from './emitter.js';
import { depthwisePlanesFunction } from './depthwise-planes-module.js';
import { padPlaneFunction } from './pad-plane-module.js';

/**
 * The name of the specialised depthwise function for a K×K filter (or the first `rows` of its rows)
 * and column stride S; `split`: the stride-2 variant over a plane split into even and odd columns
 * (see `padSplitFunction`).
 */
export const depthwiseFastName = (size: number, stride: number, split = false, rows = size): string =>
  `depthwise${size}${rows < size ? `r${rows}` : ''}s${stride}${split ? 'x' : ''}`;

/** Square filters and strides with a specialised function (dilation 1). */
export const DEPTHWISE_FAST: readonly (readonly [number, number])[] = [
  [3, 1],
  [3, 2],
  [5, 1],
  [5, 2],
];

/**
 * The depthwise functions of the kernel module, to be placed at function index `base`: `padPlane`,
 * `padSplit`, then for each K and S of DEPTHWISE_FAST the K×K function, for S 2 the split one,
 * the functions of 1..K−1 filter rows on the padded plane (column stride 1, or split for 2), and the
 * tile driver that pads each plane and runs its bands of output rows on them
 * (depthwise-planes-module.ts). On short planes most output rows have part of their window in the
 * vertical padding: those rows run on the plane's rows only.
 */
export function depthwiseFastFunctions(useFma: boolean, base: number): FunctionDef[] {
  const functions: FunctionDef[] = [padPlaneFunction(), padSplitFunction()];
  for (const [size, stride] of DEPTHWISE_FAST) {
    const split = stride === 2;
    const full = base + functions.length;
    functions.push(depthwiseFastFunction(size, stride, useFma));
    const byRows: number[] = [];
    for (let rows = 1; rows <= size; rows++) {
      // (column stride 1 runs the K×K function itself on full bands)
      byRows.push(rows === size && !split ? full : base + functions.length);
      if (rows < size || split) functions.push(depthwiseFastFunction(size, stride, useFma, split, rows));
    }
    functions.push(depthwisePlanesFunction(size, stride, byRows, base + (split ? 1 : 0)));
  }
  return functions;
}

/**
 * Generates `depthwise{K}s{S}(x, w, y, bias, H, W, OH, OW, pt, pl, owLo, owHi, sh, slack)`: one
 * channel of a depthwise convolution with a K×K filter, column stride S, row stride sh, dilation 1
 * (owLo..owHi are the output columns whose window lies inside the row).
 * The filter taps live in v128 locals for the whole channel and the taps of a 4-output step are
 * unrolled, with no bounds checks, where rows and columns are inside; stride 2 gathers the even
 * lanes of two loads. Border outputs take a scalar path with checks. With `slack` (a zero-padded
 * plane with 8 spare columns a row), a row's last 1–3 outputs are one vector step as well, stored
 * lane by lane: on 6×6 or 12×12 planes the scalar path was half of the outputs.
 *
 * `split` (stride 2 only) generates `depthwise{K}s2x(x, w, y, bias, H, W, OH, OW, 0, 0, 0, OW - 1,
 * sh, 1, odd)` over a padded plane split by `padSplit`: x holds its even columns (W a row),
 * x + odd its odd ones, so tap column c of output ow is column ow + c/2 of one of them, one plain
 * load instead of two loads and a shuffle.
 *
 * `rows` < K generates `depthwise{K}r{R}s{S}` (`…s2x` when split), the same over an R×K filter
 * (w: R rows of K taps, x: the plane from the window's first row) for padded planes only, where
 * every output is a vector step: its scalar border path is left out.
 */
export function depthwiseFastFunction(size: number, stride: number, useFma: boolean, split = false, rows = size): FunctionDef {
  const paddedOnly = split || rows < size;
  const P = { x: 0, w: 1, y: 2, bias: 3, H: 4, W: 5, OH: 6, OW: 7, pt: 8, pl: 9, owLo: 10, owHi: 11, sh: 12, slack: 13, odd: 14 } as const;
  const code = new Code(split ? 15 : 14);
  const srcOdd = code.local(I32);
  const oh = code.local(I32);
  const ow = code.local(I32);
  const ih = code.local(I32);
  const srow = code.local(I32);
  const iw = code.local(I32);
  const kh = code.local(I32);
  const kw = code.local(I32);
  const yrow = code.local(I32);
  const src = code.local(I32);
  const inside = code.local(I32);
  const accs = [code.local(V128), code.local(V128)];
  const sacc = code.local(F32);
  const taps = Array.from({ length: rows * size }, () => code.local(V128));

  for (let t = 0; t < rows * size; t++)
    code
      .get(P.w)
      .v128Load32Splat(t * 4)
      .set(taps[t] as number);

  /** acc += tap · v (v on the stack). */
  const madd = (tap: number, acc: number): void => {
    if (useFma) code.get(tap).get(acc).f32x4RelaxedMadd().set(acc);
    else code.get(tap).f32x4Mul().get(acc).f32x4Add().set(acc);
  };

  /** One output at (oh, ow) with bounds checks on every tap. */
  const scalarOutput = (): void => {
    code.get(P.bias).set(sacc);
    code.i32(0).set(kh);
    code.block().loop();
    code.get(kh).i32(rows).i32GeS().brIf(1);
    code.get(oh).get(P.sh).i32Mul().get(P.pt).i32Sub().get(kh).i32Add().set(srow);
    code.i32(0).set(kw);
    code.block().loop();
    code.get(kw).i32(size).i32GeS().brIf(1);
    code.get(ow).i32(stride).i32Mul().get(P.pl).i32Sub().get(kw).i32Add().set(iw);
    code.get(srow).get(P.H).i32LtU().get(iw).get(P.W).i32LtU().i32And().if();
    code.get(sacc);
    code.get(P.w).get(kh).i32(size).i32Mul().get(kw).i32Add().i32(2).i32Shl().i32Add().f32Load();
    code.get(P.x).get(srow).get(P.W).i32Mul().get(iw).i32Add().i32(2).i32Shl().i32Add().f32Load();
    code.f32Mul().f32Add().set(sacc);
    code.end();
    code.get(kw).i32(1).i32Add().set(kw);
    code.br(0).end().end();
    code.get(kh).i32(1).i32Add().set(kh);
    code.br(0).end().end();
    code.get(yrow).get(ow).i32(2).i32Shl().i32Add().get(sacc).f32Store();
  };

  code.i32(0).set(oh);
  code.block().loop(); // rows
  code.get(oh).get(P.OH).i32GeS().brIf(1);
  code.get(P.y).get(oh).get(P.OW).i32Mul().i32(2).i32Shl().i32Add().set(yrow);
  // every window row inside: oh·S - pt ≥ 0 and oh·S - pt + rows - 1 < H
  code.get(oh).get(P.sh).i32Mul().get(P.pt).i32Sub().tee(ih).i32(0).i32GeS();
  code
    .get(ih)
    .i32(rows - 1)
    .i32Add()
    .get(P.H)
    .i32LtS()
    .i32And()
    .set(inside);
  code.i32(0).set(ow);
  code.block().loop(); // columns
  code.get(ow).get(P.OW).i32GeS().brIf(1);
  /** `groups` × 4 outputs from ow: window row kh starts at x + ((ih + kh)·W + ow·S - pl)·4. */
  const vectorStep = (groups: number, partial = false): void => {
    for (let g = 0; g < groups; g++)
      code
        .get(P.bias)
        .f32x4Splat()
        .set(accs[g] as number);
    const columnStride = split ? 1 : stride;
    code
      .get(P.x)
      .get(ih)
      .get(P.W)
      .i32Mul()
      .get(ow)
      .i32(columnStride)
      .i32Mul()
      .i32Add()
      .get(P.pl)
      .i32Sub()
      .i32(2)
      .i32Shl()
      .i32Add()
      .set(src);
    if (split) code.get(src).get(P.odd).i32Add().set(srcOdd);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < size; c++) {
        for (let g = 0; g < groups; g++) {
          const at = c * 4 + g * 16 * stride;
          if (split) code.get(c & 1 ? srcOdd : src).v128Load((c >> 1) * 4 + g * 16);
          else if (stride === 1) code.get(src).v128Load(at);
          else
            code
              .get(src)
              .v128Load(at)
              .get(src)
              .v128Load(at + 16)
              .i8x16Shuffle(EVEN_F32_LANES);
          madd(taps[r * size + c] as number, accs[g] as number);
        }
      }
      if (r + 1 < rows) code.get(src).get(P.W).i32(2).i32Shl().i32Add().set(src);
      if (split && r + 1 < rows) code.get(srcOdd).get(P.W).i32(2).i32Shl().i32Add().set(srcOdd);
    }
    if (partial) {
      // the row's last outputs: lane 0 always, lanes 1 and 2 while inside the row
      for (let l = 0; l < 3; l++) {
        if (l > 0) code.get(ow).i32(l).i32Add().get(P.OW).i32LtS().if();
        code
          .get(yrow)
          .get(ow)
          .i32(2)
          .i32Shl()
          .i32Add()
          .get(accs[0] as number)
          .f32x4ExtractLane(l)
          .f32Store(l * 4);
        if (l > 0) code.end();
      }
      code.get(P.OW).set(ow);
      return;
    }
    for (let g = 0; g < groups; g++)
      code
        .get(yrow)
        .get(ow)
        .i32(2)
        .i32Shl()
        .i32Add()
        .get(accs[g] as number)
        .v128Store(g * 16);
    code
      .get(ow)
      .i32(groups * 4)
      .i32Add()
      .set(ow);
  };
  // eight outputs a step (each tap loaded once for two vectors), then four, then single outputs
  code.get(inside).get(ow).get(P.owLo).i32GeS().i32And().get(ow).i32(7).i32Add().get(P.owHi).i32LeS().i32And();
  code.if();
  vectorStep(2);
  code.else();
  code.get(inside).get(ow).get(P.owLo).i32GeS().i32And().get(ow).i32(3).i32Add().get(P.owHi).i32LeS().i32And();
  code.if();
  vectorStep(1);
  code.else();
  code.get(P.slack).get(inside).i32And().get(ow).get(P.owLo).i32GeS().i32And();
  code.if();
  vectorStep(1, true);
  code.else();
  // (on the padded plane every output is a vector step; the split one has no unsplit layout to
  // check bounds on)
  if (paddedOnly) code.unreachable();
  else scalarOutput();
  code.get(ow).i32(1).i32Add().set(ow);
  code.end();
  code.end();
  code.end();
  code.br(0).end().end(); // columns
  code.get(oh).i32(1).i32Add().set(oh);
  code.br(0).end().end(); // rows
  const params: ValType[] = [I32, I32, I32, F32, ...new Array<ValType>(split ? 11 : 10).fill(I32)];
  return { name: depthwiseFastName(size, stride, split, rows), params, results: [], code };
}

/**
 * Generates `padSplit(x, dst, odd, H, W, pt, pl, Hp, Wh)`: the H×W plane at x zero-padded (at row
 * pt, column pl) to Hp rows and split by padded column: even columns to Wh-wide rows at dst, odd
 * ones to dst + odd (Wh a multiple of 4 and at least (W + pl + 1) / 2). One pass: each row is
 * zeroed, then 8 input columns a step are shuffled into 4 of each plane, the last ones one by one.
 */
export function padSplitFunction(): FunctionDef {
  const P = { x: 0, dst: 1, odd: 2, H: 3, W: 4, pt: 5, pl: 6, Hp: 7, Wh: 8 } as const;
  const code = new Code(9);
  const r = code.local(I32);
  const ih = code.local(I32);
  const q = code.local(I32);
  const from = code.local(I32);
  const row = code.local(I32);
  const evenAt = code.local(I32);
  const oddAt = code.local(I32);
  const c = code.local(I32);
  const zero = code.local(V128);
  const lo = code.local(V128);
  const hi = code.local(V128);
  code.f32(0).f32x4Splat().set(zero);
  code.i32(0).set(r);
  code.block().loop();
  code.get(r).get(P.Hp).i32GeS().brIf(1);
  code.get(P.dst).get(r).get(P.Wh).i32Mul().i32(2).i32Shl().i32Add().set(row);
  // zero the row of both planes
  code.i32(0).set(q);
  code.block().loop();
  code.get(q).get(P.Wh).i32GeS().brIf(1);
  code.get(row).get(q).i32(2).i32Shl().i32Add().get(zero).v128Store();
  code.get(row).get(P.odd).i32Add().get(q).i32(2).i32Shl().i32Add().get(zero).v128Store();
  code.get(q).i32(4).i32Add().set(q);
  code.br(0).end().end();
  code.get(r).get(P.pt).i32Sub().tee(ih).get(P.H).i32LtU().if();
  code.get(P.x).get(ih).get(P.W).i32Mul().i32(2).i32Shl().i32Add().set(from);
  // input column s is padded column s + pl: with pl even its even columns go to the even plane at
  // (s + pl) / 2, with pl odd to the odd plane at (s + pl - 1) / 2 (and its odd ones the other way)
  code.get(P.pl).i32(1).i32And().if();
  code.get(row).get(P.odd).i32Add().get(P.pl).i32(1).i32Sub().i32(1).i32ShrS().i32(2).i32Shl().i32Add().set(evenAt);
  code.get(row).get(P.pl).i32(1).i32Add().i32(1).i32ShrS().i32(2).i32Shl().i32Add().set(oddAt);
  code.else();
  code.get(row).get(P.pl).i32(1).i32ShrS().i32(2).i32Shl().i32Add().set(evenAt);
  code.get(evenAt).get(P.odd).i32Add().set(oddAt);
  code.end();
  code.i32(0).set(c);
  code.block().loop();
  code.get(c).i32(8).i32Add().get(P.W).i32GtS().brIf(1);
  code.get(from).v128Load(0).set(lo);
  code.get(from).v128Load(16).set(hi);
  code.get(evenAt).get(lo).get(hi).i8x16Shuffle(EVEN_F32_LANES).v128Store(0);
  code.get(oddAt).get(lo).get(hi).i8x16Shuffle(ODD_F32_LANES).v128Store(0);
  code.get(from).i32(32).i32Add().set(from);
  code.get(evenAt).i32(16).i32Add().set(evenAt);
  code.get(oddAt).i32(16).i32Add().set(oddAt);
  code.get(c).i32(8).i32Add().set(c);
  code.br(0).end().end();
  // the last W mod 8 columns in pairs, then one
  code.block().loop();
  code.get(c).i32(2).i32Add().get(P.W).i32GtS().brIf(1);
  code.get(evenAt).get(from).f32Load(0).f32Store(0);
  code.get(oddAt).get(from).f32Load(4).f32Store(0);
  code.get(from).i32(8).i32Add().set(from);
  code.get(evenAt).i32(4).i32Add().set(evenAt);
  code.get(oddAt).i32(4).i32Add().set(oddAt);
  code.get(c).i32(2).i32Add().set(c);
  code.br(0).end().end();
  code.get(c).get(P.W).i32LtS().if();
  code.get(evenAt).get(from).f32Load(0).f32Store(0);
  code.end();
  code.end();
  code.get(r).i32(1).i32Add().set(r);
  code.br(0).end().end();
  return { name: 'padSplit', params: new Array<ValType>(9).fill(I32), results: [], code };
}

import { Code, F32, type FunctionDef, I32, V128, type ValType } from './emitter.js';

export type PoolKind = 'max' | 'avg';

/** Byte lanes 0-3 of each even float of two concatenated vectors (stride-2 columns). */
const EVEN_FLOATS = [0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27];

const P = {
  x: 0,
  y: 1,
  planes: 2,
  H: 3,
  W: 4,
  OH: 5,
  OW: 6,
  KH: 7,
  KW: 8,
  sh: 9,
  sw: 10,
  pt: 11,
  pl: 12,
  dh: 13,
  dw: 14,
  owLo: 15,
  owHi: 16,
  rowLo: 17,
  rowHi: 18,
  colLo: 19,
  colHi: 20,
} as const;
const PARAM_COUNT = 21;

/**
 * Generates `pool<Max|Avg><S1|S2>(x, y, planes, H, W, OH, OW, KH, KW, sh, sw, pt, pl, dh, dw,
 * owLo, owHi, rowLo, rowHi, colLo, colHi)`: 2-D pooling of `planes` consecutive [H×W] planes.
 * Four outputs ow..ow+3 are computed at once when ow ≥ owLo and ow+3 ≤ owHi (every tap of those
 * columns inside the row) and the column stride is the variant's 1 or 2 (stride 2 loads eight
 * floats and keeps the even ones); other outputs take a scalar path with bounds checks.
 * Max keeps the reference's order (`v > best`, first tap first) so NaN behaves alike; Avg divides
 * by the number of taps inside [rowLo, rowHi) × [colLo, colHi) (the input, or the padded input
 * for count_include_pad).
 */
export function poolFunction(kind: PoolKind, vectorStride: 1 | 2): FunctionDef {
  const code = new Code(PARAM_COUNT);
  const plane = code.local(I32);
  const oh = code.local(I32);
  const ow = code.local(I32);
  const kh = code.local(I32);
  const kw = code.local(I32);
  const ih = code.local(I32);
  const iw = code.local(I32);
  const ihBase = code.local(I32);
  const xrow = code.local(I32);
  const yrow = code.local(I32);
  const rows = code.local(I32);
  const cols = code.local(I32);
  const started = code.local(I32);
  const acc = code.local(V128);
  const sacc = code.local(F32);
  const value = code.local(F32);
  const isMax = kind === 'max';

  /** Pushes the 4 column values of the tap at byte address `xrow` (stride 1 or 2). */
  const loadColumns = (at: number): void => {
    if (vectorStride === 1) code.get(at).v128Load();
    else code.get(at).v128Load().get(at).v128Load(16).i8x16Shuffle(EVEN_FLOATS);
  };
  /** Counts k < limit with lo ≤ base + k*step < hi into `target`. */
  const countInside = (
    target: number,
    counter: number,
    limit: number,
    base: number,
    step: number,
    lo: number,
    hi: number,
    tap: number,
  ): void => {
    code.i32(0).set(target).i32(0).set(counter);
    code.block().loop();
    code.get(counter).get(limit).i32GeS().brIf(1);
    code.get(base).get(counter).get(step).i32Mul().i32Add().set(tap);
    code.get(tap).get(lo).i32GeS().get(tap).get(hi).i32LtS().i32And();
    code.if().get(target).i32(1).i32Add().set(target).end();
    code.get(counter).i32(1).i32Add().set(counter);
    code.br(0).end().end();
  };

  code.i32(0).set(plane);
  code.block().loop(); // planes
  code.get(plane).get(P.planes).i32GeS().brIf(1);
  code.i32(0).set(oh);
  code.block().loop(); // rows
  code.get(oh).get(P.OH).i32GeS().brIf(1);
  code.get(oh).get(P.sh).i32Mul().get(P.pt).i32Sub().set(ihBase);
  code.get(P.y).get(oh).get(P.OW).i32Mul().i32(2).i32Shl().i32Add().set(yrow);
  if (!isMax) countInside(rows, kh, P.KH, ihBase, P.dh, P.rowLo, P.rowHi, ih);
  code.i32(0).set(ow);
  code.block().loop(); // columns
  code.get(ow).get(P.OW).i32GeS().brIf(1);
  // vector path: stride matches, ow ≥ owLo, ow+3 ≤ owHi, ow+3 < OW
  code.get(P.sw).i32(vectorStride).i32Eq();
  code.get(ow).get(P.owLo).i32GeS().i32And();
  code.get(ow).i32(3).i32Add().get(P.owHi).i32LeS().i32And();
  code.get(ow).i32(3).i32Add().get(P.OW).i32LtS().i32And();
  code.if();
  if (isMax) code.f32x4Const(Number.NEGATIVE_INFINITY).set(acc).i32(0).set(started);
  else code.f32x4Const(0).set(acc);
  code.i32(0).set(kh);
  code.block().loop();
  code.get(kh).get(P.KH).i32GeS().brIf(1);
  code.get(ihBase).get(kh).get(P.dh).i32Mul().i32Add().set(ih);
  code.get(ih).i32(0).i32GeS().get(ih).get(P.H).i32LtS().i32And();
  code.if();
  code.get(P.x).get(ih).get(P.W).i32Mul().get(ow).get(P.sw).i32Mul().i32Add().get(P.pl).i32Sub().i32(2).i32Shl().i32Add().set(xrow);
  if (isMax) {
    code.get(started).i32Eqz().if();
    loadColumns(xrow);
    code.set(acc).i32(1).set(started).end();
  }
  code.i32(0).set(kw);
  code.block().loop();
  code.get(kw).get(P.KW).i32GeS().brIf(1);
  code.get(acc);
  loadColumns(xrow);
  if (isMax) code.f32x4Pmax().set(acc);
  else code.f32x4Add().set(acc);
  code.get(xrow).get(P.dw).i32(2).i32Shl().i32Add().set(xrow);
  code.get(kw).i32(1).i32Add().set(kw);
  code.br(0).end().end();
  code.end(); // row inside
  code.get(kh).i32(1).i32Add().set(kh);
  code.br(0).end().end();
  code.get(yrow).get(ow).i32(2).i32Shl().i32Add().get(acc);
  if (!isMax) code.get(rows).get(P.KW).i32Mul().f32ConvertI32S().f32x4Splat().f32x4Div();
  code.v128Store();
  code.get(ow).i32(4).i32Add().set(ow);
  code.else();
  // scalar path
  if (isMax) code.f32(Number.NEGATIVE_INFINITY).set(sacc).i32(0).set(started);
  else code.f32(0).set(sacc);
  code.i32(0).set(kh);
  code.block().loop();
  code.get(kh).get(P.KH).i32GeS().brIf(1);
  code.get(ihBase).get(kh).get(P.dh).i32Mul().i32Add().set(ih);
  code.get(ih).i32(0).i32GeS().get(ih).get(P.H).i32LtS().i32And();
  code.if();
  code.i32(0).set(kw);
  code.block().loop();
  code.get(kw).get(P.KW).i32GeS().brIf(1);
  code.get(ow).get(P.sw).i32Mul().get(P.pl).i32Sub().get(kw).get(P.dw).i32Mul().i32Add().set(iw);
  code.get(iw).i32(0).i32GeS().get(iw).get(P.W).i32LtS().i32And();
  code.if();
  code.get(P.x).get(ih).get(P.W).i32Mul().get(iw).i32Add().i32(2).i32Shl().i32Add().f32Load().set(value);
  if (isMax) {
    // take v when v > best or nothing is taken yet (so NaN is kept or skipped in the reference's order)
    code.get(value).get(sacc).get(value).get(sacc).f32Gt().get(started).i32Eqz().i32Or().select().set(sacc);
    code.i32(1).set(started);
  } else {
    code.get(sacc).get(value).f32Add().set(sacc);
  }
  code.end();
  code.get(kw).i32(1).i32Add().set(kw);
  code.br(0).end().end();
  code.end(); // row inside
  code.get(kh).i32(1).i32Add().set(kh);
  code.br(0).end().end();
  code.get(yrow).get(ow).i32(2).i32Shl().i32Add().get(sacc);
  if (!isMax) {
    code.get(ow).get(P.sw).i32Mul().get(P.pl).i32Sub().set(iw);
    countInside(cols, kw, P.KW, iw, P.dw, P.colLo, P.colHi, ih);
    code.get(rows).get(cols).i32Mul().f32ConvertI32S().f32Div();
  }
  code.f32Store();
  code.get(ow).i32(1).i32Add().set(ow);
  code.end(); // if/else
  code.br(0).end().end(); // columns
  code.get(oh).i32(1).i32Add().set(oh);
  code.br(0).end().end(); // rows
  code.get(P.x).get(P.H).get(P.W).i32Mul().i32(2).i32Shl().i32Add().set(P.x);
  code.get(P.y).get(P.OH).get(P.OW).i32Mul().i32(2).i32Shl().i32Add().set(P.y);
  code.get(plane).i32(1).i32Add().set(plane);
  code.br(0).end().end(); // planes
  const params: ValType[] = new Array<ValType>(PARAM_COUNT).fill(I32);
  const name = `pool${isMax ? 'Max' : 'Avg'}S${vectorStride}`;
  return { name, params, results: [], code };
}

/**
 * Generates `globalPool<Max|Avg>(x, y, planes, size)`: y[p] = max or mean of plane p's `size`
 * floats, with two f32x4 accumulators. Max propagates NaN, as the reference does.
 */
export function globalPoolFunction(kind: PoolKind): FunctionDef {
  const isMax = kind === 'max';
  const code = new Code(4);
  const [x, y, planes, size] = [0, 1, 2, 3];
  const plane = code.local(I32);
  const at = code.local(I32);
  const end = code.local(I32);
  const acc0 = code.local(V128);
  const acc1 = code.local(V128);
  const sacc = code.local(F32);
  const combine = (): Code => (isMax ? code.f32x4Max() : code.f32x4Add());
  code.i32(0).set(plane);
  code.block().loop();
  code.get(plane).get(planes).i32GeS().brIf(1);
  code.f32x4Const(isMax ? Number.NEGATIVE_INFINITY : 0).set(acc0);
  code.f32x4Const(isMax ? Number.NEGATIVE_INFINITY : 0).set(acc1);
  code.get(x).set(at);
  code.get(x).get(size).i32(-8).i32And().i32(2).i32Shl().i32Add().set(end);
  code.block().loop();
  code.get(at).get(end).i32GeU().brIf(1);
  code.get(acc0).get(at).v128Load();
  combine().set(acc0);
  code.get(acc1).get(at).v128Load(16);
  combine().set(acc1);
  code.get(at).i32(32).i32Add().set(at);
  code.br(0).end().end();
  code.get(acc0).get(acc1);
  combine().set(acc0);
  code.get(acc0).f32x4ExtractLane(0).get(acc0).f32x4ExtractLane(1);
  isMax ? code.f32Max() : code.f32Add();
  code.get(acc0).f32x4ExtractLane(2).get(acc0).f32x4ExtractLane(3);
  isMax ? code.f32Max() : code.f32Add();
  isMax ? code.f32Max() : code.f32Add();
  code.set(sacc);
  code.get(x).get(size).i32(2).i32Shl().i32Add().set(end);
  code.block().loop();
  code.get(at).get(end).i32GeU().brIf(1);
  code.get(sacc).get(at).f32Load();
  isMax ? code.f32Max() : code.f32Add();
  code.set(sacc);
  code.get(at).i32(4).i32Add().set(at);
  code.br(0).end().end();
  code.get(y).get(sacc);
  if (!isMax) code.get(size).f32ConvertI32S().f32Div();
  code.f32Store();
  code.get(x).get(size).i32(2).i32Shl().i32Add().set(x);
  code.get(y).i32(4).i32Add().set(y);
  code.get(plane).i32(1).i32Add().set(plane);
  code.br(0).end().end();
  return { name: `globalPool${isMax ? 'Max' : 'Avg'}`, params: [I32, I32, I32, I32], results: [], code };
}

export function poolFunctions(): FunctionDef[] {
  return [
    poolFunction('max', 1),
    poolFunction('max', 2),
    poolFunction('avg', 1),
    poolFunction('avg', 2),
    globalPoolFunction('max'),
    globalPoolFunction('avg'),
  ];
}

type PoolExport = (...args: number[]) => void;
/** Exports of the pooling functions (byte addresses; see the generators for the argument order). */
export interface PoolExports {
  readonly poolMaxS1: PoolExport;
  readonly poolMaxS2: PoolExport;
  readonly poolAvgS1: PoolExport;
  readonly poolAvgS2: PoolExport;
  /** The padded-band functions (see pool-padded-module.ts). */
  readonly [padded: `poolPadded${string}`]: PoolExport;
  globalPoolMax(x: number, y: number, planes: number, size: number): void;
  globalPoolAvg(x: number, y: number, planes: number, size: number): void;
}

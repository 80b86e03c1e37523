import { Code, EVEN_F32_LANES, type FunctionDef, I32, ODD_F32_LANES, V128, type ValType } from './emitter.js';
import { emitPadPlane } from './pad-plane-module.js';
import type { PoolKind } from './pool-module.js';

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
  pt: 10,
  pl: 11,
  dh: 12,
  dw: 13,
  rowLo: 14,
  rowHi: 15,
  band: 16,
  Hb: 17,
  Wp: 18,
  bandOut: 19,
  counts: 20,
} as const;
const PARAM_COUNT = 21;
/** `i8x16Shuffle` lanes: floats 1–3 of the first vector, then float 0 of the second. */
const NEXT_LANE: readonly number[] = Array.from({ length: 16 }, (_, i) => i + 4);

/** A padded-band pooling function: kind, column stride, and square window size with dilation 1 (0: any window). */
export interface PaddedPool {
  readonly kind: PoolKind;
  readonly stride: 1 | 2;
  readonly size: number;
}

/** The generated functions: any window, then unrolled 2×2 and 3×3 (most CNN pools) for each kind and stride. */
export const PADDED_POOLS: readonly PaddedPool[] = [0, 2, 3].flatMap((size) =>
  (['max', 'avg'] as const).flatMap((kind) => ([1, 2] as const).map((stride) => ({ kind, stride, size }))),
);

/** The name of a padded-band pooling function. */
export const paddedPoolName = ({ kind, stride, size }: PaddedPool): `poolPadded${string}` =>
  `poolPadded${kind === 'max' ? 'Max' : 'Avg'}${size || ''}S${stride}`;

/** The index in PADDED_POOLS of the function for a window: an unrolled one when there is one. */
export function paddedPoolIndex(
  kind: PoolKind,
  stride: 1 | 2,
  kernel: readonly [number, number],
  dilations: readonly [number, number],
): number {
  const [KH, KW] = kernel;
  const size = KH === KW && dilations[0] === 1 && dilations[1] === 1 ? KH : 0;
  const exact = PADDED_POOLS.findIndex((f) => f.kind === kind && f.stride === stride && f.size === size);
  return exact >= 0 ? exact : PADDED_POOLS.findIndex((f) => f.kind === kind && f.stride === stride && f.size === 0);
}

/**
 * Generates `poolPadded<Max|Avg><S1|S2>(x, y, planes, H, W, OH, OW, KH, KW, sh, pt, pl, dh, dw,
 * rowLo, rowHi, band, Hb, Wp, bandOut, counts)`: 2-D pooling of `planes` consecutive H×W planes with
 * column stride 1 or 2, where every output is a vector step. Each band of up to `bandOut` output
 * rows first copies the input rows it reads into the Hb×Wp buffer at `band` (padded row 0 is input
 * row oh0·sh − pt, column pl is input column 0), so no tap needs a bounds check, and a row's last
 * 1–3 outputs are stored lane by lane; Wp covers the reads of whole 4-output steps.
 * Max pads with the nearest input value (dilation 1 only: a window's taps are then a contiguous
 * range and the padding only repeats values the window already has, which leaves the reference's
 * `v > best` order, NaN included, unchanged); it requires every window to touch the input.
 * Avg pads with zeros and divides by (taps of the window's rows inside [rowLo, rowHi)) × counts[ow],
 * the caller's per-column count of taps inside its column bounds.
 */
export function paddedPoolFunction(f: PaddedPool): FunctionDef {
  const { kind, stride, size } = f;
  const isMax = kind === 'max';
  const code = new Code(PARAM_COUNT);
  const plane = code.local(I32);
  const oh0 = code.local(I32);
  const oh1 = code.local(I32);
  const ptBand = code.local(I32);
  const rowsBand = code.local(I32);
  const oh = code.local(I32);
  const ow = code.local(I32);
  const kh = code.local(I32);
  const kw = code.local(I32);
  const rowAt = code.local(I32);
  const tapRow = code.local(I32);
  const at = code.local(I32);
  const yrow = code.local(I32);
  const rows = code.local(I32);
  const ih = code.local(I32);
  const rowStep = code.local(I32);
  const acc = code.local(V128);
  const v0 = code.local(V128);
  const v1 = code.local(V128);
  const even = code.local(V128);

  /** Pushes the 4 output columns' values of the tap at byte address `from`. */
  const loadColumns = (from: number, offset = 0): void => {
    if (stride === 1) code.get(from).v128Load(offset);
    else
      code
        .get(from)
        .v128Load(offset)
        .get(from)
        .v128Load(offset + 16)
        .i8x16Shuffle(EVEN_F32_LANES);
  };
  /** acc = max or sum of acc and the vector in local `v`. */
  const combine = (v: number): void => {
    code.get(acc).get(v);
    if (isMax) code.f32x4Pmax();
    else code.f32x4Add();
    code.set(acc);
  };
  /** acc = max or sum of acc and the tap at `from` + offset. */
  const take = (from: number, offset = 0): void => {
    code.get(acc);
    loadColumns(from, offset);
    if (isMax) code.f32x4Pmax();
    else code.f32x4Add();
    code.set(acc);
  };

  code.get(P.dh).get(P.Wp).i32Mul().i32(2).i32Shl().set(rowStep);
  code.i32(0).set(plane);
  code.block().loop(); // planes
  code.get(plane).get(P.planes).i32GeS().brIf(1);
  code.i32(0).set(oh0);
  code.block().loop(); // bands
  code.get(oh0).get(P.OH).i32GeS().brIf(1);
  code.get(oh0).get(P.bandOut).i32Add().set(oh1);
  code.get(oh1).get(P.OH).get(oh1).get(P.OH).i32LtS().select().set(oh1);
  // the band's padded rows: from input row oh0·sh − pt to the last tap row of output oh1 − 1
  code.get(P.pt).get(oh0).get(P.sh).i32Mul().i32Sub().set(ptBand);
  code.get(oh1).i32(1).i32Sub().get(oh0).i32Sub().get(P.sh).i32Mul();
  code.get(P.KH).i32(1).i32Sub().get(P.dh).i32Mul().i32Add().i32(1).i32Add().set(rowsBand);
  emitPadPlane(code, { x: P.x, dst: P.band, H: P.H, W: P.W, pt: ptBand, pl: P.pl, Hp: rowsBand, Wp: P.Wp }, isMax);
  code.get(oh0).set(oh);
  code.block().loop(); // rows of the band
  code.get(oh).get(oh1).i32GeS().brIf(1);
  code.get(P.band).get(oh).get(oh0).i32Sub().get(P.sh).i32Mul().get(P.Wp).i32Mul().i32(2).i32Shl().i32Add().set(rowAt);
  code.get(P.y).get(oh).get(P.OW).i32Mul().i32(2).i32Shl().i32Add().set(yrow);
  if (!isMax) {
    // taps of this output row inside [rowLo, rowHi)
    code.i32(0).set(rows).i32(0).set(kh);
    code.block().loop();
    code.get(kh).get(P.KH).i32GeS().brIf(1);
    code.get(oh).get(P.sh).i32Mul().get(P.pt).i32Sub().get(kh).get(P.dh).i32Mul().i32Add().set(ih);
    code.get(ih).get(P.rowLo).i32GeS().get(ih).get(P.rowHi).i32LtS().i32And();
    code.get(rows).i32Add().set(rows);
    code.get(kh).i32(1).i32Add().set(kh);
    code.br(0).end().end();
  }
  code.i32(0).set(ow);
  code.block().loop(); // 4-output steps
  code.get(ow).get(P.OW).i32GeS().brIf(1);
  code
    .get(rowAt)
    .get(ow)
    .i32(stride + 1)
    .i32Shl()
    .i32Add()
    .set(tapRow);
  // max starts from the window's first tap (its first input value, by the edge padding), as the reference does
  const first = (): void => {
    if (isMax) code.set(acc);
    else code.get(acc).f32x4Add().set(acc);
  };
  if (!isMax) code.f32x4Const(0).set(acc);
  if (size && stride === 2) {
    // per row: the even and odd columns of two loads are taps 0 and 1; tap 2 is the even ones moved
    // one lane on by a third load (3 loads and shuffles a row instead of 6 loads and 3 shuffles)
    for (let kh = 0; kh < size; kh++) {
      if (kh > 0) code.get(tapRow).get(rowStep).i32Add().set(tapRow);
      code.get(tapRow).v128Load().set(v0).get(tapRow).v128Load(16).set(v1);
      code.get(v0).get(v1).i8x16Shuffle(EVEN_F32_LANES).set(even);
      if (kh === 0) {
        code.get(even);
        first();
      } else combine(even);
      code.get(v0).get(v1).i8x16Shuffle(ODD_F32_LANES).set(v0);
      combine(v0);
      if (size === 3) {
        code.get(even).get(tapRow).v128Load(32).i8x16Shuffle(NEXT_LANE).set(v0);
        combine(v0);
      }
    }
  } else if (size) {
    // size×size taps unrolled, at constant offsets within each padded row (dilation 1)
    for (let kh = 0; kh < size; kh++) {
      if (kh > 0) code.get(tapRow).get(rowStep).i32Add().set(tapRow);
      for (let kw = 0; kw < size; kw++) {
        if (kh === 0 && kw === 0) {
          loadColumns(tapRow);
          first();
        } else take(tapRow, kw * 4);
      }
    }
  } else {
    if (isMax) {
      loadColumns(tapRow);
      first();
    }
    code.i32(0).set(kh);
    code.block().loop();
    code.get(kh).get(P.KH).i32GeS().brIf(1);
    code.get(tapRow).set(at);
    code.i32(0).set(kw);
    code.block().loop();
    code.get(kw).get(P.KW).i32GeS().brIf(1);
    take(at);
    code.get(at).get(P.dw).i32(2).i32Shl().i32Add().set(at);
    code.get(kw).i32(1).i32Add().set(kw);
    code.br(0).end().end();
    code.get(tapRow).get(rowStep).i32Add().set(tapRow);
    code.get(kh).i32(1).i32Add().set(kh);
    code.br(0).end().end();
  }
  if (!isMax) {
    code.get(acc).get(rows).f32ConvertI32S().f32x4Splat();
    code.get(P.counts).get(ow).i32(2).i32Shl().i32Add().v128Load().f32x4Mul().f32x4Div().set(acc);
  }
  code.get(yrow).get(ow).i32(2).i32Shl().i32Add().set(at);
  code.get(ow).i32(4).i32Add().get(P.OW).i32LeS().if();
  code.get(at).get(acc).v128Store();
  code.else();
  // the row's last 1–3 outputs
  for (let lane = 0; lane < 3; lane++) {
    code.get(ow).i32(lane).i32Add().get(P.OW).i32LtS().if();
    code
      .get(at)
      .get(acc)
      .f32x4ExtractLane(lane)
      .f32Store(lane * 4);
    code.end();
  }
  code.end();
  code.get(ow).i32(4).i32Add().set(ow);
  code.br(0).end().end(); // steps
  code.get(oh).i32(1).i32Add().set(oh);
  code.br(0).end().end(); // rows
  code.get(oh1).set(oh0);
  code.br(0).end().end(); // bands
  code.get(P.x).get(P.H).get(P.W).i32Mul().i32(2).i32Shl().i32Add().set(P.x);
  code.get(P.y).get(P.OH).get(P.OW).i32Mul().i32(2).i32Shl().i32Add().set(P.y);
  code.get(plane).i32(1).i32Add().set(plane);
  code.br(0).end().end(); // planes
  const params: ValType[] = new Array<ValType>(PARAM_COUNT).fill(I32);
  return { name: paddedPoolName(f), params, results: [], code };
}

/** The padded-band pooling functions of PADDED_POOLS. */
export function paddedPoolFunctions(): FunctionDef[] {
  return PADDED_POOLS.map(paddedPoolFunction);
}

import { Code, F32, type FunctionDef, I32, V128 } from './emitter.js';

/**
 * Integer convolution kernels on uint8/int8 data (byte addresses into device memory):
 *
 * - `packPairs` lays out K rows of P bytes (a pointwise convolution's input, or any [K, P] matrix)
 *   as an i16 panel of (row pair, column, 2): element (k, p) minus the zero point at
 *   ((k>>1)·NP + p)·2 + (k&1), an odd K padded with a zero row.
 * - `packWindows` does the same for a k×k convolution's im2col (padding reads as the zero point).
 * - `igemm` multiplies M weight rows (bytes, row stride ldw, per-row zero point) with such a panel:
 *   4 rows × 8 columns per step, i32x4.dot_i16x8_s over a pair of K per lane. The store is either
 *   the int32 accumulator (ConvInteger) or the requantization of tsge::RequantizedConv, fused:
 *   acc + bias → float32 × scale → round half to even → clamp → + zero point → bytes (with
 *   exactProduct the product is taken in float64, QLinearConv's arithmetic).
 * - `dwChannels` runs depthwise channels over i16 row pairs of each plane (the columns split by
 *   phase for stride 2, so every tap reads contiguous lanes), i32x4.dot_i16x8_s per two taps, with
 *   the same store; a 3×3 filter at stride 1 takes two output rows per step from the same loads.
 */

/** The flags argument of igemm and dwChannels. */
export const INT_FLAGS = {
  /** Weights are int8 (else uint8). */
  weightsSigned: 1,
  /** Store the int32 accumulator (else requantize to bytes); 2, the shift of its element size. */
  int32Out: 2,
  /** Output bytes are int8 (else uint8). */
  outSigned: 4,
  /** Input bytes are int8 (else uint8). */
  inputSigned: 8,
  /** A bias is given. */
  bias: 16,
  /** Requantize in float64 (the sum times the float32 scale, unrounded): QLinearConv's arithmetic. */
  exactProduct: 32,
} as const;

/** Lanes of two i16x8 vectors a, b interleaved: a0 b0 a1 b1 a2 b2 a3 b3 (low) and a4 b4 … (high). */
const INTERLEAVE_LOW = [0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23];
const INTERLEAVE_HIGH = [8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31];
/** Depthwise filters of this many tap pairs (3×3: 2 row pairs × 3 columns) run unrolled, their taps in locals. */
const UNROLLED_TAPS = 6;

/** Per i32 lane of a, b: (0, a's low i16) and (a's high i16, b's low i16); b's high halves are 0. */
const HIGH_ZERO_LOW = [18, 19, 0, 1, 22, 23, 4, 5, 26, 27, 8, 9, 30, 31, 12, 13];
const HIGH_LOW = [2, 3, 16, 17, 6, 7, 20, 21, 10, 11, 24, 25, 14, 15, 28, 29];
/** The even and the odd i16 lanes of two vectors. */
const EVEN_I16 = [0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29];
const ODD_I16 = [2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31];

/** `for (v = from; v < to; v += step) body()`, with from, to and (unless a constant) step pushed by callbacks. */
function forLoop(code: Code, v: number, from: () => void, to: () => void, step: number | (() => void), body: () => void): void {
  from();
  code.set(v);
  code.block().loop();
  code.get(v);
  to();
  code.i32GeS().brIf(1);
  body();
  code.get(v);
  if (typeof step === 'number') code.i32(step);
  else step();
  code.i32Add().set(v);
  code.br(0).end().end();
}

/** `for (v = 0; v < limit; v += step) body()` over locals v and limit. */
function countUp(code: Code, v: number, limit: number, step: number, body: () => void): void {
  forLoop(
    code,
    v,
    () => code.i32(0),
    () => code.get(limit),
    step,
    body,
  );
}

/** Pushes `flags & flag` (the condition of a bySign). */
export function flagOf(code: Code, flags: number, flag: number): () => void {
  return () => code.get(flags).i32(flag).i32And();
}

/** The low or high 8 bytes of the vector on the stack widened to i16 lanes. */
export function widen(code: Code, high: boolean, signed: boolean): Code {
  return high ? code.i16x8ExtendHighI8x16(signed) : code.i16x8ExtendLowI8x16(signed);
}

/** Pushes the byte at the address in local `at`, sign-extended when flag `signed` is set in local `flags`. */
function loadByte(code: Code, at: number, flags: number, signed: number): void {
  code.bySign(flagOf(code, flags, signed), I32, (s) => (s ? code.get(at).i32Load8S() : code.get(at).i32Load8U()));
}

/**
 * `packPairs(x, ldx, K, np, panel, NP, zx, signed)`: rows k < K of x (row stride ldx bytes),
 * columns 0..np (rounded up to 8; the extra columns are don't-cares) into the panel.
 */
function packPairsFunction(): FunctionDef {
  const [x, ldx, K, np, panel, NP, zx, signed] = [0, 1, 2, 3, 4, 5, 6, 7];
  const code = new Code(8);
  const k = code.local(I32);
  const p = code.local(I32);
  const row = code.local(I32);
  const dst = code.local(I32);
  const zero = code.local(V128);
  const a = code.local(V128);
  const b = code.local(V128);
  code.get(zx).i16x8Splat().set(zero);
  const load = (): void => {
    code.bySign(
      () => code.get(signed),
      V128,
      (s) => code.get(row).get(p).i32Add().v128Load8x8(s),
    );
    code.get(zero).i16x8Sub();
  };
  countUp(code, k, K, 2, () => {
    code.get(x).get(k).get(ldx).i32Mul().i32Add().set(row);
    code.get(panel).get(k).i32(1).i32ShrS().get(NP).i32Mul().i32(2).i32Shl().i32Add().set(dst);
    countUp(code, p, np, 8, () => {
      load();
      code.set(a);
      // the partner row, or zeros past an odd K
      code.get(k).i32(1).i32Add().get(K).i32LtS().ifValue(V128);
      code.get(row).get(ldx).i32Add().set(row);
      load();
      code.get(row).get(ldx).i32Sub().set(row);
      code.else();
      code.i32x4Const(0);
      code.end();
      code.set(b);
      code.get(dst).get(a).get(b).i8x16Shuffle(INTERLEAVE_LOW).v128Store(0);
      code.get(dst).get(a).get(b).i8x16Shuffle(INTERLEAVE_HIGH).v128Store(16);
      code.get(dst).i32(32).i32Add().set(dst);
    });
  });
  return { name: 'packPairs', params: Array(8).fill(I32), results: [], code };
}

/**
 * `packWindows(x, panel, NP, np, c, channels, H, W, OW, KH, KW, sh, sw, dh, dw, pt, pl, zx, signed)`:
 * the im2col of output positions c..c+np of a 2-D convolution over `channels` planes of x, minus
 * the zero point (padding reads 0), in the packPairs layout; an odd K = channels·KH·KW gets a zero
 * partner row.
 */
function packWindowsFunction(): FunctionDef {
  const names = [
    'x',
    'panel',
    'NP',
    'np',
    'c',
    'channels',
    'H',
    'W',
    'OW',
    'KH',
    'KW',
    'sh',
    'sw',
    'dh',
    'dw',
    'pt',
    'pl',
    'zx',
    'signed',
  ] as const;
  const P = Object.fromEntries(names.map((n, i) => [n, i])) as Record<(typeof names)[number], number>;
  const code = new Code(names.length);
  const row = code.local(I32);
  const ch = code.local(I32);
  const ki = code.local(I32);
  const kj = code.local(I32);
  const o = code.local(I32);
  const at = code.local(I32);
  const oi = code.local(I32);
  const oj = code.local(I32);
  const iy = code.local(I32);
  const ix = code.local(I32);
  const xc = code.local(I32);
  const oi0 = code.local(I32);
  const oj0 = code.local(I32);
  code.get(P.c).get(P.OW).i32DivU().set(oi0);
  code.get(P.c).get(oi0).get(P.OW).i32Mul().i32Sub().set(oj0);
  code.i32(0).set(row);
  const start = (): void => {
    // byte address of (row >> 1, column 0, row & 1)
    code.get(P.panel).get(row).i32(1).i32ShrS().get(P.NP).i32Mul().i32(2).i32Shl().i32Add();
    code.get(row).i32(1).i32And().i32(1).i32Shl().i32Add().set(at);
  };
  countUp(code, ch, P.channels, 1, () => {
    code.get(P.x).get(ch).get(P.H).get(P.W).i32Mul().i32Mul().i32Add().set(xc);
    countUp(code, ki, P.KH, 1, () => {
      countUp(code, kj, P.KW, 1, () => {
        start();
        code.get(oi0).set(oi);
        code.get(oj0).set(oj);
        countUp(code, o, P.np, 1, () => {
          code.get(oi).get(P.sh).i32Mul().get(ki).get(P.dh).i32Mul().i32Add().get(P.pt).i32Sub().set(iy);
          code.get(oj).get(P.sw).i32Mul().get(kj).get(P.dw).i32Mul().i32Add().get(P.pl).i32Sub().set(ix);
          code.get(at);
          // unsigned compares also reject negative coordinates
          code.get(iy).get(P.H).i32LtU().get(ix).get(P.W).i32LtU().i32And().ifValue(I32);
          code.get(xc).get(iy).get(P.W).i32Mul().i32Add().get(ix).i32Add().set(iy);
          loadByte(code, iy, P.signed, 1);
          code.get(P.zx).i32Sub();
          code.else();
          code.i32(0);
          code.end();
          code.i32Store16();
          code.get(at).i32(4).i32Add().set(at);
          code.get(oj).i32(1).i32Add().tee(oj).get(P.OW).i32Eq().if();
          code.i32(0).set(oj);
          code.get(oi).i32(1).i32Add().set(oi);
          code.end();
        });
        code.get(row).i32(1).i32Add().set(row);
      });
    });
  });
  // the zero partner of an odd last row
  code.get(row).i32(1).i32And().if();
  start();
  countUp(code, o, P.np, 1, () => {
    code.get(at).i32(0).i32Store16();
    code.get(at).i32(4).i32Add().set(at);
  });
  code.end();
  return { name: 'packWindows', params: names.map(() => I32), results: [], code };
}

/**
 * `packPadded(xp, panel, NP, np, c, table, pairs, Wq, OW, sh, sw, zx, signed)`: packWindows for
 * column strides 1 and 2 from a padded copy xp of the input (padding bytes equal to zx, rows Wq
 * bytes with slack for a step's reads), 8 output columns a step. `table` holds per row pair the
 * byte offsets in xp of its two rows' window origins (channel, ki·dh, kj·dw), the second −1 for
 * the zero row of an odd K. A step that passes the end of an output row writes lanes that the
 * next row's first step (or, past np, nothing that is read) overwrites; it may write 28 bytes past
 * the panel.
 */
function packPaddedFunction(): FunctionDef {
  const names = ['xp', 'panel', 'NP', 'np', 'c', 'table', 'pairs', 'Wq', 'OW', 'sh', 'sw', 'zx', 'signed'] as const;
  const P = Object.fromEntries(names.map((n, i) => [n, i])) as Record<(typeof names)[number], number>;
  const code = new Code(names.length);
  const kp = code.local(I32);
  const a0 = code.local(I32);
  const b0 = code.local(I32);
  const rowA = code.local(I32);
  const rowB = code.local(I32);
  const dst = code.local(I32);
  const o = code.local(I32);
  const oi = code.local(I32);
  const oj = code.local(I32);
  const q = code.local(I32);
  const seg = code.local(I32);
  const at = code.local(I32);
  const oi0 = code.local(I32);
  const oj0 = code.local(I32);
  const zx = code.local(V128);
  const va = code.local(V128);
  const vb = code.local(V128);
  const bytes16 = code.local(V128);
  code.get(P.zx).i16x8Splat().set(zx);
  code.get(P.c).get(P.OW).i32DivU().set(oi0);
  code.get(P.c).get(oi0).get(P.OW).i32Mul().i32Sub().set(oj0);
  /** 8 columns of the row at `row` from output column oj + q, minus zx, as i16 lanes. */
  const columns = (row: number): void => {
    code.get(row).get(oj).get(q).i32Add().get(P.sw).i32Mul().i32Add().set(at);
    code.get(P.sw).i32(1).i32Eq().ifValue(V128);
    code.bySign(
      () => code.get(P.signed),
      V128,
      (s) => code.get(at).v128Load8x8(s),
    );
    code.else();
    // stride 2: the even bytes of 16
    code.bySign(
      () => code.get(P.signed),
      V128,
      (s) => {
        code.get(at).v128Load().set(bytes16);
        widen(code.get(bytes16), false, s);
        widen(code.get(bytes16), true, s);
        code.i8x16Shuffle(EVEN_I16);
      },
    );
    code.end();
    code.get(zx).i16x8Sub();
  };
  countUp(code, kp, P.pairs, 1, () => {
    code.get(P.table).get(kp).i32(3).i32Shl().i32Add().i32Load(0).get(P.xp).i32Add().set(a0);
    code.get(P.table).get(kp).i32(3).i32Shl().i32Add().i32Load(4).set(b0);
    code.get(b0).i32(0).i32GeS().if();
    code.get(b0).get(P.xp).i32Add().set(b0);
    code.end();
    code.get(P.panel).get(kp).get(P.NP).i32Mul().i32(2).i32Shl().i32Add().set(dst);
    code.get(oi0).set(oi);
    code.get(oj0).set(oj);
    code.i32(0).set(o);
    code.block().loop();
    code.get(o).get(P.np).i32GeS().brIf(1);
    // this output row's columns oj.. (at most np − o of them)
    code.get(P.OW).get(oj).i32Sub().set(seg);
    code.get(seg).get(P.np).get(o).i32Sub().i32GtS().if();
    code.get(P.np).get(o).i32Sub().set(seg);
    code.end();
    code.get(oi).get(P.sh).i32Mul().get(P.Wq).i32Mul().set(at);
    code.get(a0).get(at).i32Add().set(rowA);
    code.get(b0).get(at).i32Add().set(rowB);
    countUp(code, q, seg, 8, () => {
      columns(rowA);
      code.set(va);
      code.get(b0).i32(0).i32GeS().ifValue(V128);
      columns(rowB);
      code.else();
      code.i32x4Const(0);
      code.end();
      code.set(vb);
      code.get(dst).get(o).get(q).i32Add().i32(2).i32Shl().i32Add().tee(at);
      code.get(va).get(vb).i8x16Shuffle(INTERLEAVE_LOW).v128Store(0);
      code.get(at).get(va).get(vb).i8x16Shuffle(INTERLEAVE_HIGH).v128Store(16);
    });
    code.get(o).get(seg).i32Add().set(o);
    code.i32(0).set(oj);
    code.get(oi).i32(1).i32Add().set(oi);
    code.br(0).end().end();
  });
  return { name: 'packPadded', params: names.map(() => I32), results: [], code };
}

/** Per-row values the store reads (bias as i32x4, scale as f32x4 splats), held in locals while a row block runs. */
interface RowLocals {
  readonly bias: number;
  readonly scale: number;
  /** The scale as f64x2 (exactProduct). */
  readonly scale64: number;
}

/** Locals of the requantizing store. */
interface RequantLocals {
  readonly lo: number;
  readonly hi: number;
  readonly lo64: number;
  readonly hi64: number;
  readonly zp: number;
  readonly flags: number;
  readonly packed: number;
  readonly sum: number;
  /** The float32 path: ROUNDING_MAGIC as f32 lanes, zp − ROUNDING_BITS as i32 lanes. */
  readonly magic: number;
  readonly zpBits: number;
}

/**
 * 1.5·2²³: for |v| ≤ 2²², v + ROUNDING_MAGIC in float32 is rounded (half to even, the default
 * rounding) to an integer n + ROUNDING_MAGIC, whose bits are ROUNDING_BITS + n.
 */
const ROUNDING_MAGIC = 12582912;
const ROUNDING_BITS = 0x4b400000;

const LANES_2_3 = [8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15];
const LOW_HALVES = [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23];

/**
 * Emits the requantizing store of 8 accumulators (two i32x4, the bias already in them) of one
 * row: leaves the 8 result bytes in the low half of a v128 on the stack. The float32 path clamps
 * acc · scale to [lo, hi] (the range minus zp, integers: clamping before rounding gives what
 * clamping after does) with pmin/pmax, which take the bound for NaN, then rounds half to even
 * by adding ROUNDING_MAGIC and reads the integer from the float's bits, the zero point added in
 * the same i32 add; i16 and byte narrowing then never saturate. The bytes equal
 * clamp(round(acc · scale), lo, hi) + zp, the reference's arithmetic, in one instruction a step.
 */
function emitRequant(code: Code, accs: readonly [number, number], row: RowLocals, v: RequantLocals): void {
  const packed = v.packed;
  code.get(v.flags).i32(INT_FLAGS.exactProduct).i32And().ifValue(V128);
  for (const acc of accs) {
    // float64, two lanes at a time
    code.get(acc).set(v.sum);
    for (const high of [false, true]) {
      code.get(v.sum);
      if (high) code.get(v.sum).i8x16Shuffle(LANES_2_3);
      code.f64x2ConvertLowI32x4S().get(row.scale64).f64x2Mul().f64x2Nearest();
      code.get(v.lo64).f64x2Max().get(v.hi64).f64x2Min().i32x4TruncSatF64x2SZero();
    }
    code.i8x16Shuffle(LOW_HALVES);
    code.get(v.zp).i32x4Add();
  }
  code.i16x8NarrowI32x4S();
  // int8 or uint8 saturation (the values are in range already)
  code.set(packed);
  code.bySign(flagOf(code, v.flags, INT_FLAGS.outSigned), V128, (s) => code.get(packed).get(packed).i8x16NarrowI16x8(s));
  code.else();
  for (const acc of accs) {
    // pmax(lo, pmin(hi, v)): lo, hi under v on the stack
    code.get(v.lo).get(v.hi).get(acc).f32x4ConvertI32x4S().get(row.scale).f32x4Mul().f32x4Pmin().f32x4Pmax();
    code.get(v.magic).f32x4Add().get(v.zpBits).i32x4Add();
  }
  code.i16x8NarrowI32x4S().set(packed);
  code.bySign(flagOf(code, v.flags, INT_FLAGS.outSigned), V128, (s) => code.get(packed).get(packed).i8x16NarrowI16x8(s));
  code.end();
}

/** Sets the float32 requantizing store's rounding constant and zero point (minus the rounding bits) locals. */
function emitByteRange(code: Code, p: { zp: number }, v: { magic: number; zpBits: number }): void {
  code.f32x4Const(ROUNDING_MAGIC).set(v.magic);
  code.get(p.zp).i32(ROUNDING_BITS).i32Sub().i32x4Splat().set(v.zpBits);
}

/**
 * Emits the store of one row's 8 columns at `dst` (element address of column 0 of the block):
 * the full 8 when `full` is set, else the first `count` through the scratch `tmp`.
 */
function emitRowStore(
  code: Code,
  accs: readonly [number, number],
  row: RowLocals,
  s: RequantLocals & {
    dst: number;
    full: number;
    count: number;
    tmp: number;
    j: number;
  },
): void {
  code.get(s.flags).i32(INT_FLAGS.int32Out).i32And().if();
  // int32 accumulators
  code.get(s.full).if();
  code.get(s.dst).get(accs[0]).v128Store(0);
  code.get(s.dst).get(accs[1]).v128Store(16);
  code.else();
  code.get(s.tmp).get(accs[0]).v128Store(0);
  code.get(s.tmp).get(accs[1]).v128Store(16);
  countUp(code, s.j, s.count, 1, () => {
    code.get(s.dst).get(s.j).i32(2).i32Shl().i32Add();
    code.get(s.tmp).get(s.j).i32(2).i32Shl().i32Add().i32Load();
    code.i32Store();
  });
  code.end();
  code.else();
  {
    emitRequant(code, accs, row, s);
    const packed = s.packed;
    code.set(packed);
    code.get(s.full).if();
    code.get(s.dst).get(packed).v128Store64Lane0();
    code.else();
    code.get(s.tmp).get(packed).v128Store(0);
    countUp(code, s.j, s.count, 1, () => {
      code.get(s.dst).get(s.j).i32Add();
      code.get(s.tmp).get(s.j).i32Add().i32Load8U();
      code.i32Store8();
    });
    code.end();
  }
  code.end();
}

/** Reads the per-row bias (i32) and scale (f32) of row `m` into locals. */
function emitRowParams(
  code: Code,
  m: number,
  row: RowLocals,
  p: { bias: number; biasStride: number; scale: number; scaleStride: number; flags: number },
): void {
  code.get(p.flags).i32(INT_FLAGS.bias).i32And().ifValue(I32);
  code.get(p.bias).get(m).get(p.biasStride).i32Mul().i32Add().i32Load();
  code.else();
  code.i32(0);
  code.end();
  code.i32x4Splat().set(row.bias);
  code.get(p.scale).get(m).get(p.scaleStride).i32Mul().i32Add().f32Load().f32x4Splat().set(row.scale);
  code.get(p.scale).get(m).get(p.scaleStride).i32Mul().i32Add().f32Load().f64PromoteF32().f64x2Splat().set(row.scale64);
}

/** Byte lanes of i32 lanes (0-3 the first vector, 4-7 the second) for i8x16Shuffle. */
const i32Lanes = (lanes: readonly number[]): number[] => lanes.flatMap((l) => [4 * l, 4 * l + 1, 4 * l + 2, 4 * l + 3]);
const EVEN_I32 = i32Lanes([0, 2, 4, 6]);
const ODD_I32 = i32Lanes([1, 3, 5, 7]);
/** The i32 and i64 unpacks of two vectors (a0 b0 a1 b1, a2 b2 a3 b3; a01 b01, a23 b23). */
const UNPACK_LOW_I32 = i32Lanes([0, 4, 1, 5]);
const UNPACK_HIGH_I32 = i32Lanes([2, 6, 3, 7]);
const UNPACK_LOW_I64 = i32Lanes([0, 1, 4, 5]);
const UNPACK_HIGH_I64 = i32Lanes([2, 3, 6, 7]);

/**
 * `igemm(M, K, W, ldw, wzp, wzStride, panel, NP, np, Y, ldy, flags, bias, biasStride, scale,
 * scaleStride, lo, hi, zp, tmp, wpack)`: Y[m, p] for m < M, p < np from weight rows W (bytes) and
 * a packed panel (packPairs layout, NP columns); ldy is Y's row stride in elements (bytes or
 * int32); lo/hi are the output range minus the zero point (float32), tmp 32 bytes of scratch.
 * Each block of 4 rows is first laid out, minus its zero points, as i16 pairs in wpack
 * (16·(ceil(K/2) + 8) bytes), so the inner loop splats one i32 per row and pair. With `packed` set,
 * W holds the rows in that layout already (the compiler's packed weight, packed-int-weights.ts in
 * @tsge/ops: row m at W + m·ldw bytes) and is read in place; wzp is then not read.
 */
function igemmFunction(fixedFlags?: number): FunctionDef {
  const P = {
    M: 0,
    K: 1,
    W: 2,
    ldw: 3,
    wzp: 4,
    wzStride: 5,
    panel: 6,
    NP: 7,
    np: 8,
    Y: 9,
    ldy: 10,
    flags: 11,
    bias: 12,
    biasStride: 13,
    scale: 14,
    scaleStride: 15,
    lo: 16,
    hi: 17,
    zp: 18,
    tmp: 19,
    wpack: 20,
    packed: 21,
  } as const;
  const params = Array(22).fill(I32);
  params[P.lo] = F32;
  params[P.hi] = F32;
  const code = new Code(22);
  // a specialised copy: the flags a constant, so that the compiler drops the branches on them
  if (fixedFlags !== undefined) code.i32(fixedFlags).set(P.flags);
  const m = code.local(I32);
  const wp = code.local(I32);
  const panelStep = code.local(I32);
  const wend = code.local(I32);
  const pj = code.local(I32);
  const kp = code.local(I32);
  const pp = code.local(I32);
  const pairs = code.local(I32);
  const full = code.local(I32);
  const count = code.local(I32);
  const dst = code.local(I32);
  const j = code.local(I32);
  const x0 = code.local(V128);
  const x1 = code.local(V128);
  const wv = code.local(V128);
  const lo = code.local(V128);
  const hi = code.local(V128);
  const zp = code.local(V128);
  const packed = code.local(V128);
  const lo64 = code.local(V128);
  const hi64 = code.local(V128);
  const sum = code.local(V128);
  /** The block's i16 pairs: wpack, or the packed rows in place. */
  const wbase = code.local(I32);
  const rows = [0, 1, 2, 3].map(() => ({
    w: code.local(I32),
    z: code.local(V128),
    bias: code.local(V128),
    scale: code.local(V128),
    scale64: code.local(V128),
    accs: [code.local(V128), code.local(V128)] as [number, number],
  }));
  code.get(P.lo).f32x4Splat().set(lo);
  code.get(P.hi).f32x4Splat().set(hi);
  code.get(P.lo).f64PromoteF32().f64x2Splat().set(lo64);
  code.get(P.hi).f64PromoteF32().f64x2Splat().set(hi64);
  code.get(P.zp).i32x4Splat().set(zp);
  const bytesRange = { magic: code.local(V128), zpBits: code.local(V128) };
  emitByteRange(code, P, bytesRange);
  code.get(P.K).i32(1).i32Add().i32(1).i32ShrS().set(pairs);
  code.get(P.NP).i32(2).i32Shl().set(panelStep);
  const store = { full, count, tmp: P.tmp, j, lo, hi, lo64, hi64, zp, flags: P.flags, dst, packed, sum, ...bytesRange };

  /** Rows m..m+R-1 over all column blocks. */
  const block = (R: number): void => {
    for (let r = 0; r < R; r++) {
      const row = rows[r] as (typeof rows)[number];
      code.get(P.W).get(m).i32(r).i32Add().get(P.ldw).i32Mul().i32Add().set(row.w);
      // the row's weight zero point as i16 lanes
      code.get(P.wzp).get(m).i32(r).i32Add().get(P.wzStride).i32Mul().i32Add().set(j);
      loadByte(code, j, P.flags, INT_FLAGS.weightsSigned);
      code.i16x8Splat().set(row.z);
      code.get(m).i32(r).i32Add().set(j);
      emitRowParams(code, j, row, { bias: P.bias, biasStride: P.biasStride, scale: P.scale, scaleStride: P.scaleStride, flags: P.flags });
      if (R === 4) continue;
      // the row minus its zero point as i16 pairs, one i32 per pair, into wpack[kp][r]
      code.get(P.packed).i32Eqz().if();
      countUp(code, kp, pairs, 8, () => {
        for (const high of [false, true]) {
          code.bySign(flagOf(code, P.flags, INT_FLAGS.weightsSigned), V128, (s) =>
            widen(code.get(row.w).get(kp).i32(1).i32Shl().i32Add().v128Load(), high, s),
          );
          code.get(row.z).i16x8Sub().set(wv);
          for (let q = 0; q < 4; q++) {
            const pair = (high ? 4 : 0) + q;
            code
              .get(P.wpack)
              .get(kp)
              .i32(R * 4)
              .i32Mul()
              .i32Add();
            code
              .get(wv)
              .i32x4ExtractLane(q)
              .i32Store((pair * R + r) * 4);
          }
        }
      });
      code.end();
    }
    if (R === 4) {
      // 8 pairs of the 4 rows minus their zero points (in the accumulators' locals), each half a
      // 4×4 transpose of i32 pairs: wpack[kp + q] = the rows' pair q
      const [t0, t1, t2, t3] = [x0, x1, wv, packed];
      code.get(P.packed).i32Eqz().if();
      countUp(code, kp, pairs, 8, () => {
        for (const row of rows) {
          for (const high of [false, true]) {
            code.bySign(flagOf(code, P.flags, INT_FLAGS.weightsSigned), V128, (s) =>
              widen(code.get(row.w).get(kp).i32(1).i32Shl().i32Add().v128Load(), high, s),
            );
            code
              .get(row.z)
              .i16x8Sub()
              .set(row.accs[high ? 1 : 0]);
          }
        }
        for (const half of [0, 1]) {
          const [a, b, c, d] = rows.map((row) => row.accs[half] as number) as [number, number, number, number];
          code.get(a).get(b).i8x16Shuffle(UNPACK_LOW_I32).set(t0);
          code.get(a).get(b).i8x16Shuffle(UNPACK_HIGH_I32).set(t1);
          code.get(c).get(d).i8x16Shuffle(UNPACK_LOW_I32).set(t2);
          code.get(c).get(d).i8x16Shuffle(UNPACK_HIGH_I32).set(t3);
          code.get(P.wpack).get(kp).i32(4).i32Shl().i32Add().set(j);
          const base = half * 64;
          code.get(j).get(t0).get(t2).i8x16Shuffle(UNPACK_LOW_I64).v128Store(base);
          code
            .get(j)
            .get(t0)
            .get(t2)
            .i8x16Shuffle(UNPACK_HIGH_I64)
            .v128Store(base + 16);
          code
            .get(j)
            .get(t1)
            .get(t3)
            .i8x16Shuffle(UNPACK_LOW_I64)
            .v128Store(base + 32);
          code
            .get(j)
            .get(t1)
            .get(t3)
            .i8x16Shuffle(UNPACK_HIGH_I64)
            .v128Store(base + 48);
        }
      });
      code.end();
    }
    code.get(P.packed).ifValue(I32);
    code.get(P.W).get(m).get(P.ldw).i32Mul().i32Add();
    code.else();
    code.get(P.wpack);
    code.end();
    code.set(wbase);
    countUp(code, pj, P.np, 8, () => {
      // the accumulators start at the bias
      for (let r = 0; r < R; r++)
        for (const a of (rows[r] as (typeof rows)[number]).accs) code.get((rows[r] as (typeof rows)[number]).bias).set(a);
      code.get(P.panel).get(pj).i32(2).i32Shl().i32Add().set(pp);
      code.get(wbase).set(wp);
      // wp walks R pairs a step until it reaches wend (pairs·R·4 bytes on)
      code
        .get(wbase)
        .get(pairs)
        .i32(R * 4)
        .i32Mul()
        .i32Add()
        .set(wend);
      /** The pairs of 8 columns (or of the first 4, the rest of the accumulators left at the bias). */
      const pairSteps = (columns: 4 | 8): void => {
        code.block().loop();
        code.get(wp).get(wend).i32GeU().brIf(1);
        code.get(pp).v128Load(0).set(x0);
        if (columns === 8) code.get(pp).v128Load(16).set(x1);
        for (let r = 0; r < R; r++) {
          const row = rows[r] as (typeof rows)[number];
          code
            .get(wp)
            .v128Load32Splat(r * 4)
            .set(wv);
          code.get(row.accs[0]).get(x0).get(wv).i32x4DotI16x8S().i32x4Add().set(row.accs[0]);
          if (columns === 8) code.get(row.accs[1]).get(x1).get(wv).i32x4DotI16x8S().i32x4Add().set(row.accs[1]);
        }
        code.get(pp).get(panelStep).i32Add().set(pp);
        code
          .get(wp)
          .i32(R * 4)
          .i32Add()
          .set(wp);
        code.br(0).end().end();
      };
      // a last block of at most 4 columns (a 7×7 or 14×14 output's) takes half the steps
      code.get(P.np).get(pj).i32Sub().i32(4).i32LeS().if();
      pairSteps(4);
      code.else();
      pairSteps(8);
      code.end();
      code.get(pj).i32(8).i32Add().get(P.np).i32LeS().set(full);
      code.get(P.np).get(pj).i32Sub().set(count);
      for (let r = 0; r < R; r++) {
        const row = rows[r] as (typeof rows)[number];
        // element address of (m + r, pj)
        // (int32Out is 2: the flag is the element size's shift)
        code.get(m).i32(r).i32Add().get(P.ldy).i32Mul().get(pj).i32Add();
        code.get(P.flags).i32(INT_FLAGS.int32Out).i32And().i32Shl();
        code.get(P.Y).i32Add().set(dst);
        emitRowStore(code, row.accs, row, store);
      }
    });
  };

  code.i32(0).set(m);
  code.block().loop();
  code.get(m).i32(4).i32Add().get(P.M).i32GtS().brIf(1);
  block(4);
  code.get(m).i32(4).i32Add().set(m);
  code.br(0).end().end();
  code.block().loop();
  code.get(m).get(P.M).i32GeS().brIf(1);
  block(1);
  code.get(m).i32(1).i32Add().set(m);
  code.br(0).end().end();
  return { name: fixedFlags === undefined ? 'igemm' : `igemm_${fixedFlags}`, params, results: [], code };
}

/**
 * `igemv(M, K, W, ldw, wzp, wzStride, xs, sumX, Y, flags, bias, biasStride, scale, scaleStride,
 * lo, hi, zp)`: Y[m] for m < M (a multiple of 4; one output column, Y contiguous) from weight rows
 * W (bytes, row stride ldw) and xs, the column minus its zero point as i16 (K rounded up to 16,
 * zero past K), whose sum is sumX: Σ (w − wz)·x' = Σ w·x' − wz·sumX, so the weight bytes only
 * widen (the bytes a row's last step reads past K meet zeros). 4 rows a step, 16 K per dot pair;
 * the requantizing store (or the int32 one) of igemm, 4 rows in one vector. Not exactProduct.
 */
function igemvFunction(fixedFlags?: number): FunctionDef {
  const names = [
    'M',
    'K',
    'W',
    'ldw',
    'wzp',
    'wzStride',
    'xs',
    'sumX',
    'Y',
    'flags',
    'bias',
    'biasStride',
    'scale',
    'scaleStride',
    'lo',
    'hi',
    'zp',
  ] as const;
  const P = Object.fromEntries(names.map((n, i) => [n, i])) as Record<(typeof names)[number], number>;
  const params = names.map((n) => (n === 'lo' || n === 'hi' ? F32 : I32));
  const code = new Code(names.length);
  if (fixedFlags !== undefined) code.i32(fixedFlags).set(P.flags);
  const m = code.local(I32);
  const kb = code.local(I32);
  const K16 = code.local(I32);
  const at = code.local(I32);
  const rowAt = [0, 1, 2, 3].map(() => code.local(I32));
  const accs = [0, 1, 2, 3].map(() => code.local(V128));
  const x0 = code.local(V128);
  const x1 = code.local(V128);
  const wv = code.local(V128);
  const sum = code.local(V128);
  const lo = code.local(V128);
  const hi = code.local(V128);
  const magic = code.local(V128);
  const zpBits = code.local(V128);
  const negSumX = code.local(V128);
  code.get(P.lo).f32x4Splat().set(lo);
  code.get(P.hi).f32x4Splat().set(hi);
  emitByteRange(code, P, { magic, zpBits });
  code.i32(0).get(P.sumX).i32Sub().i32x4Splat().set(negSumX);
  code.get(P.K).i32(15).i32Add().i32(-16).i32And().set(K16);
  const signedWeights = flagOf(code, P.flags, INT_FLAGS.weightsSigned);
  /** Pushes a per-row operand of rows m..m+3: 4 lanes from `base` + m·stride (stride 0: one splat). */
  const perRow = (base: number, stride: number, load: (at: number) => void, splat: (at: number) => void): void => {
    code.get(base).get(m).get(stride).i32Mul().i32Add().set(at);
    code.get(stride).i32Eqz().ifValue(V128);
    splat(at);
    code.else();
    load(at);
    code.end();
  };
  countUp(code, m, P.M, 4, () => {
    for (let r = 0; r < 4; r++) {
      code
        .get(P.W)
        .get(m)
        .i32(r)
        .i32Add()
        .get(P.ldw)
        .i32Mul()
        .i32Add()
        .set(rowAt[r] as number);
      code.i32x4Const(0).set(accs[r] as number);
    }
    countUp(code, kb, K16, 16, () => {
      code.get(P.xs).get(kb).i32(1).i32Shl().i32Add().tee(at).v128Load(0).set(x0);
      code.get(at).v128Load(16).set(x1);
      for (let r = 0; r < 4; r++) {
        const acc = accs[r] as number;
        code
          .get(rowAt[r] as number)
          .get(kb)
          .i32Add()
          .v128Load()
          .set(wv);
        code.get(acc);
        code.bySign(signedWeights, V128, (sg) => widen(code.get(wv), false, sg));
        code.get(x0).i32x4DotI16x8S().i32x4Add();
        code.bySign(signedWeights, V128, (sg) => widen(code.get(wv), true, sg));
        code.get(x1).i32x4DotI16x8S().i32x4Add().set(acc);
      }
    });
    // the rows' sums side by side: pairs of lanes, then pairs of pairs
    const [a, b, c, d] = accs as [number, number, number, number];
    code.get(a).get(b).i8x16Shuffle(EVEN_I32).get(a).get(b).i8x16Shuffle(ODD_I32).i32x4Add().set(a);
    code.get(c).get(d).i8x16Shuffle(EVEN_I32).get(c).get(d).i8x16Shuffle(ODD_I32).i32x4Add().set(c);
    code.get(a).get(c).i8x16Shuffle(EVEN_I32).get(a).get(c).i8x16Shuffle(ODD_I32).i32x4Add().set(sum);
    // minus wz·sumX
    perRow(
      P.wzp,
      P.wzStride,
      (q) => code.bySign(signedWeights, V128, (sg) => widen(code.get(q).v128Load32Splat(), false, sg)).i32x4ExtendLowI16x8S(),
      (q) => {
        loadByte(code, q, P.flags, INT_FLAGS.weightsSigned);
        code.i32x4Splat();
      },
    );
    code.get(negSumX).i32x4Mul().get(sum).i32x4Add().set(sum);
    code.get(P.flags).i32(INT_FLAGS.bias).i32And().if();
    perRow(
      P.bias,
      P.biasStride,
      (q) => code.get(q).v128Load(),
      (q) => code.get(q).v128Load32Splat(),
    );
    code.get(sum).i32x4Add().set(sum);
    code.end();
    code.get(P.flags).i32(INT_FLAGS.int32Out).i32And().if();
    code.get(P.Y).get(m).i32(2).i32Shl().i32Add().get(sum).v128Store();
    code.else();
    code.get(P.Y).get(m).i32Add();
    code.get(lo).get(hi).get(sum).f32x4ConvertI32x4S();
    perRow(
      P.scale,
      P.scaleStride,
      (q) => code.get(q).v128Load(),
      (q) => code.get(q).v128Load32Splat(),
    );
    code.f32x4Mul().f32x4Pmin().f32x4Pmax().get(magic).f32x4Add().get(zpBits).i32x4Add().set(sum);
    code.get(sum).get(sum).i16x8NarrowI32x4S().set(sum);
    code.bySign(flagOf(code, P.flags, INT_FLAGS.outSigned), V128, (sg) => code.get(sum).get(sum).i8x16NarrowI16x8(sg));
    code.i32x4ExtractLane(0).i32Store();
    code.end();
  });
  return { name: fixedFlags === undefined ? 'igemv' : `igemv_${fixedFlags}`, params, results: [], code };
}

/**
 * `dwChannels(x, w, wzp, wzStride, y, count, c0, H, W, OH, OW, KK, taps, plane, Lp, rowStep,
 * padOffset, sw, zx, flags, bias, biasStride, scale, scaleStride, lo, hi, zp, tmp, pl, KP, pairs,
 * Hp, dhBytes, pairStep)`: depthwise channels c0..c0+count of planes x (bytes, H×W each) into y (OH×OW
 * each). Per channel the plane is copied, minus zx, into the zero-bordered i16 `plane` (Hp rows
 * of sw phases of Lp lanes; padded row pt starts at byte padOffset, input column ix lands in phase
 * (ix + pl) % sw at index (ix + pl) / sw); then `pairs` holds, for every row y, rows y and
 * y + dilation side by side as i16 pairs (dhBytes apart in `plane`), for every pairStep-th y. The KP tap pairs in `taps`
 * (16 bytes each: byte offset in `pairs`, the two taps' indices, the second −1 past the filter's
 * last row, then their weights minus the zero point as an i16 pair, filled here) each take one
 * i32x4.dot_i16x8_s per 4 outputs; output row oi reads from pairs + oi·rowStep.
 */
function dwChannelsFunction(fixedFlags?: number): FunctionDef {
  const names = [
    'x',
    'w',
    'wzp',
    'wzStride',
    'y',
    'count',
    'c0',
    'H',
    'W',
    'OH',
    'OW',
    'KK',
    'taps',
    'plane',
    'Lp',
    'rowStep',
    'padOffset',
    'sw',
    'zx',
    'flags',
    'bias',
    'biasStride',
    'scale',
    'scaleStride',
    'lo',
    'hi',
    'zp',
    'tmp',
    'pl',
    'KP',
    'pairs',
    'Hp',
    'dhBytes',
    'pairStep',
    'zxRow',
    'pt',
    'dh',
  ] as const;
  const P = Object.fromEntries(names.map((n, i) => [n, i])) as Record<(typeof names)[number], number>;
  const params = names.map((n) => (n === 'lo' || n === 'hi' ? F32 : I32));
  const code = new Code(names.length);
  if (fixedFlags !== undefined) code.i32(fixedFlags).set(P.flags);
  const c = code.local(I32);
  const lane = code.local(I32);
  const rowLanes = code.local(I32);
  const iy = code.local(I32);
  const ix = code.local(I32);
  const src = code.local(I32);
  const dstRow = code.local(I32);
  const t = code.local(I32);
  const oi = code.local(I32);
  const oj = code.local(I32);
  const rowBase = code.local(I32);
  const ybase = code.local(I32);
  const full = code.local(I32);
  const count = code.local(I32);
  const dst = code.local(I32);
  const j = code.local(I32);
  const wz = code.local(I32);
  const col = code.local(I32);
  const lo = code.local(V128);
  const hi = code.local(V128);
  const zp = code.local(V128);
  const zx = code.local(V128);
  const wv = code.local(V128);
  const xv = code.local(V128);
  const tapOffsets = Array.from({ length: UNROLLED_TAPS }, () => code.local(I32));
  const wb = code.local(I32);
  const tapWeights = Array.from({ length: UNROLLED_TAPS }, () => code.local(V128));
  const lo16 = code.local(V128);
  const hi16 = code.local(V128);
  const packed = code.local(V128);
  const row = { bias: code.local(V128), scale: code.local(V128), scale64: code.local(V128) };
  const lo64 = code.local(V128);
  const hi64 = code.local(V128);
  const sum = code.local(V128);
  const accs: [number, number] = [code.local(V128), code.local(V128)];
  const rowA = code.local(I32);
  const rowB = code.local(I32);
  const evenA = code.local(V128);
  const oddA = code.local(V128);
  const evenB = code.local(V128);
  const oddB = code.local(V128);
  /** Two output rows a step (see pairRowsTwice), their second row's accumulators and tap pairs. */
  const twoRows = code.local(I32);
  const accs2: [number, number] = [code.local(V128), code.local(V128)];
  const tapWeights2 = Array.from({ length: UNROLLED_TAPS }, () => code.local(V128));
  const nextRow = code.local(I32);
  code.get(P.lo).f32x4Splat().set(lo);
  code.get(P.hi).f32x4Splat().set(hi);
  code.get(P.zp).i32x4Splat().set(zp);
  code.get(P.zx).i16x8Splat().set(zx);
  // the plan asks for two rows a step by building only even pair rows of a 3×3, stride 1 filter
  code.get(P.sw).i32(1).i32Eq().get(P.pairStep).i32(2).i32Eq().i32And().get(P.KP).i32(UNROLLED_TAPS).i32Eq().i32And();
  code.get(P.rowStep).get(P.Lp).i32(2).i32Shl().i32Eq().i32And().set(twoRows);
  code.get(P.lo).f64PromoteF32().f64x2Splat().set(lo64);
  code.get(P.hi).f64PromoteF32().f64x2Splat().set(hi64);
  const bytesRange = { magic: code.local(V128), zpBits: code.local(V128) };
  emitByteRange(code, P, bytesRange);
  const store = { full, count, tmp: P.tmp, j, lo, hi, lo64, hi64, zp, flags: P.flags, dst, packed, sum, ...bytesRange };

  /** Columns ix..ix+15 of a row (read from src) minus zx into their stride-2 phases of the padded row. */
  const split16 = (): void => {
    code.get(src).get(ix).i32Add().v128Load().set(xv);
    for (const [half, high] of [
      [lo16, false],
      [hi16, true],
    ] as const) {
      code.bySign(flagOf(code, P.flags, INT_FLAGS.inputSigned), V128, (s) => widen(code.get(xv), high, s));
      code.get(zx).i16x8Sub().set(half);
    }
    for (const [lanes, shift] of [
      [EVEN_I16, 0],
      [ODD_I16, 1],
    ] as const) {
      code.get(ix).get(P.pl).i32Add().i32(shift).i32Add().set(col);
      code.get(dstRow).get(col).i32(1).i32And().get(P.Lp).i32Mul().get(col).i32(1).i32ShrS().i32Add().i32(1).i32Shl().i32Add();
      code.get(lo16).get(hi16).i8x16Shuffle(lanes).v128Store();
    }
  };
  /** Pushes the address of input row `row` of the channel at src, or of the zx row when the row is padding. */
  const rowAddress = (row: () => void): void => {
    code.get(src);
    row();
    code.get(P.W).i32Mul().i32Add();
    code.get(P.zxRow);
    row();
    code.get(P.H).i32LtU();
    code.select();
  };
  /** Bytes at `at` + ix widened (low or high half of 16, or 8 when `eight`) minus zx. */
  const widened = (at: number, part: 'eight' | 'low' | 'high'): void => {
    code.bySign(flagOf(code, P.flags, INT_FLAGS.inputSigned), V128, (s) =>
      part === 'eight' ? code.get(at).get(ix).i32Add().v128Load8x8(s) : widen(code.get(at).get(ix).i32Add().v128Load(), part === 'high', s),
    );
    code.get(zx).i16x8Sub();
  };
  /**
   * Stride 1 and 2: the pair rows straight from the bytes, minus zx, without the i16 plane: pair
   * row y holds input rows y − pt and y − pt + dh (the zx row where they are padding, so that they
   * read 0), column ix at lane ix + pl of its phase. The lanes left of pl stay as the tile cleared
   * them; the lanes a row's last vector wrote past W are cleared after it.
   */
  const fusedPairs = (): void => {
    code.get(P.x).get(c).get(P.H).get(P.W).i32Mul().i32Mul().i32Add().set(src);
    code.get(P.sw).get(P.Lp).i32Mul().set(rowLanes);
    forLoop(
      code,
      iy,
      () => code.i32(0),
      () => code.get(P.Hp),
      () => code.get(P.pairStep),
      () => {
        rowAddress(() => code.get(iy).get(P.pt).i32Sub());
        code.set(rowA);
        rowAddress(() => code.get(iy).get(P.pt).i32Sub().get(P.dh).i32Add());
        code.set(rowB);
        code.get(P.pairs).get(iy).get(rowLanes).i32Mul().i32(2).i32Shl().i32Add().set(dstRow);
        code.i32(0).set(ix);
        code.get(P.sw).i32(1).i32Eq().if();
        code.block().loop();
        code.get(ix).get(P.W).i32GeS().brIf(1);
        widened(rowA, 'eight');
        code.set(lo16);
        widened(rowB, 'eight');
        code.set(hi16);
        code.get(dstRow).get(ix).get(P.pl).i32Add().i32(2).i32Shl().i32Add().tee(dst);
        code.get(lo16).get(hi16).i8x16Shuffle(INTERLEAVE_LOW).v128Store();
        code.get(dst).get(lo16).get(hi16).i8x16Shuffle(INTERLEAVE_HIGH).v128Store(16);
        code.get(ix).i32(8).i32Add().set(ix);
        code.br(0).end().end();
        code.get(dstRow).get(P.W).get(P.pl).i32Add().i32(2).i32Shl().i32Add().tee(dst).i32x4Const(0).v128Store();
        code.get(dst).i32x4Const(0).v128Store(16);
        code.else();
        // stride 2: 16 columns a step, the even ones (ix + 2q) to one phase, the odd ones to the other
        code.block().loop();
        code.get(ix).get(P.W).i32GeS().brIf(1);
        for (const [at, even, odd] of [
          [rowA, evenA, oddA],
          [rowB, evenB, oddB],
        ] as const) {
          widened(at, 'low');
          code.set(lo16);
          widened(at, 'high');
          code.set(hi16);
          code.get(lo16).get(hi16).i8x16Shuffle(EVEN_I16).set(even);
          code.get(lo16).get(hi16).i8x16Shuffle(ODD_I16).set(odd);
        }
        for (const [shift, a, b] of [
          [0, evenA, evenB],
          [1, oddA, oddB],
        ] as const) {
          // column ix + shift + pl: phase col & 1, lane col >> 1
          code.get(ix).get(P.pl).i32Add().i32(shift).i32Add().set(col);
          code.get(dstRow).get(col).i32(1).i32And().get(P.Lp).i32Mul().get(col).i32(1).i32ShrS().i32Add().i32(2).i32Shl().i32Add().tee(dst);
          code.get(a).get(b).i8x16Shuffle(INTERLEAVE_LOW).v128Store();
          code.get(dst).get(a).get(b).i8x16Shuffle(INTERLEAVE_HIGH).v128Store(16);
        }
        code.get(ix).i32(16).i32Add().set(ix);
        code.br(0).end().end();
        for (const phase of [0, 1]) {
          // the phase's first column at or past W + pl
          code.get(P.W).get(P.pl).i32Add().set(col);
          code.get(col).get(col).i32(phase).i32Add().i32(1).i32And().i32Add().set(col);
          code.get(dstRow).i32(phase).get(P.Lp).i32Mul().get(col).i32(1).i32ShrS().i32Add().i32(2).i32Shl().i32Add().tee(dst);
          code.i32x4Const(0).v128Store();
          code.get(dst).i32x4Const(0).v128Store(16);
        }
        code.end();
      },
    );
  };
  countUp(code, c, P.count, 1, () => {
    code.get(P.sw).i32(3).i32LtS().if();
    fusedPairs();
    code.else();
    // the plane minus its zero point into the padded i16 copy
    code.get(P.x).get(c).get(P.H).get(P.W).i32Mul().i32Mul().i32Add().set(src);
    countUp(code, iy, P.H, 1, () => {
      // padded row pt + iy (padOffset is pt's byte offset)
      code.get(P.plane).get(P.padOffset).i32Add().get(iy).get(P.sw).i32Mul().get(P.Lp).i32Mul().i32(1).i32Shl().i32Add().set(dstRow);
      code.get(P.sw).i32(1).i32Eq().if();
      // stride 1: 8 columns a step, then the tail one by one
      code.i32(0).set(ix);
      code.block().loop();
      code.get(ix).i32(8).i32Add().get(P.W).i32GtS().brIf(1);
      code.get(dstRow).get(ix).get(P.pl).i32Add().i32(1).i32Shl().i32Add();
      code.bySign(flagOf(code, P.flags, INT_FLAGS.inputSigned), V128, (s) => code.get(src).get(ix).i32Add().v128Load8x8(s));
      code.get(zx).i16x8Sub().v128Store();
      code.get(ix).i32(8).i32Add().set(ix);
      code.br(0).end().end();
      // the tail as one more vector (reading past the row, as the caller allows), then zeros over
      // the lanes past column W it wrote (the plane has 8 lanes of slack)
      code.get(ix).get(P.W).i32LtS().if();
      code.get(dstRow).get(ix).get(P.pl).i32Add().i32(1).i32Shl().i32Add();
      code.bySign(flagOf(code, P.flags, INT_FLAGS.inputSigned), V128, (s) => code.get(src).get(ix).i32Add().v128Load8x8(s));
      code.get(zx).i16x8Sub().v128Store();
      code.get(dstRow).get(P.W).get(P.pl).i32Add().i32(1).i32Shl().i32Add().i32x4Const(0).v128Store();
      code.end();
      code.else();
      // other strides: each column to its phase; stride 2 splits 16 columns a step
      code.i32(0).set(ix);
      code.get(P.sw).i32(2).i32Eq().if();
      code.block().loop();
      code.get(ix).i32(16).i32Add().get(P.W).i32GtS().brIf(1);
      split16();
      code.get(ix).i32(16).i32Add().set(ix);
      code.br(0).end().end();
      // the tail as one more step, then zeros over each phase's lanes past column W
      code.get(ix).get(P.W).i32LtS().if();
      split16();
      for (const phase of [0, 1]) {
        // the phase's first column at or past W + pl
        code.get(P.W).get(P.pl).i32Add().set(col);
        code.get(col).get(col).i32(phase).i32Add().i32(1).i32And().i32Add().set(col);
        code.get(dstRow).i32(phase).get(P.Lp).i32Mul().get(col).i32(1).i32ShrS().i32Add().i32(1).i32Shl().i32Add();
        code.i32x4Const(0).v128Store();
      }
      code.get(P.W).set(ix);
      code.end();
      code.end();
      forLoop(
        code,
        ix,
        () => code.get(ix),
        () => code.get(P.W),
        1,
        () => {
          code.get(ix).get(P.pl).i32Add().set(col);
          code.get(dstRow);
          // phase (col % sw) at index col / sw
          code.get(col).get(P.sw).i32DivU();
          code.get(col).get(col).get(P.sw).i32DivU().get(P.sw).i32Mul().i32Sub().get(P.Lp).i32Mul().i32Add();
          code.i32(1).i32Shl().i32Add();
          code.get(src).get(ix).i32Add().set(j);
          loadByte(code, j, P.flags, INT_FLAGS.inputSigned);
          code.get(P.zx).i32Sub().i32Store16();
        },
      );
      code.end();
      code.get(src).get(P.W).i32Add().set(src);
    });
    // rows y and y + dh side by side as i16 pairs: two taps of a column per dot product
    code.get(P.sw).get(P.Lp).i32Mul().set(rowLanes);
    // (only every pairStep-th row: the others are never read when the stride skips them)
    forLoop(
      code,
      iy,
      () => code.i32(0),
      () => code.get(P.Hp),
      () => code.get(P.pairStep),
      () => {
        code.get(iy).get(rowLanes).i32Mul().set(lane);
        code.get(lane).get(rowLanes).i32Add().set(col);
        code.block().loop();
        code.get(lane).get(col).i32GeS().brIf(1);
        code.get(P.plane).get(lane).i32(1).i32Shl().i32Add().tee(src).v128Load().set(lo16);
        code.get(src).get(P.dhBytes).i32Add().v128Load().set(hi16);
        code.get(P.pairs).get(lane).i32(2).i32Shl().i32Add().tee(src).get(lo16).get(hi16).i8x16Shuffle(INTERLEAVE_LOW).v128Store();
        code.get(src).get(lo16).get(hi16).i8x16Shuffle(INTERLEAVE_HIGH).v128Store(16);
        code.get(lane).i32(8).i32Add().set(lane);
        code.br(0).end().end();
      },
    );
    code.end();
    // this channel's tap pairs minus the zero point (entries: offset, tap a, tap b or -1, pair)
    code.get(P.wzp).get(P.c0).get(c).i32Add().get(P.wzStride).i32Mul().i32Add().set(src);
    loadByte(code, src, P.flags, INT_FLAGS.weightsSigned);
    code.set(wz);
    countUp(code, t, P.KP, 1, () => {
      code.get(P.taps).get(t).i32(4).i32Shl().i32Add().set(dstRow);
      code.get(P.w).get(c).get(P.KK).i32Mul().i32Add().get(dstRow).i32Load(4).i32Add().set(src);
      loadByte(code, src, P.flags, INT_FLAGS.weightsSigned);
      code.get(wz).i32Sub().set(wb);
      code.get(dstRow).i32Load(8).i32(0).i32LtS().ifValue(I32);
      code.i32(0);
      code.else();
      code.get(P.w).get(c).get(P.KK).i32Mul().i32Add().get(dstRow).i32Load(8).i32Add().set(src);
      loadByte(code, src, P.flags, INT_FLAGS.weightsSigned);
      code.get(wz).i32Sub();
      code.end();
      code.i32(16).i32Shl().get(wb).i32(0xffff).i32And().i32Or().set(wb);
      code.get(dstRow).get(wb).i32Store(12);
    });
    // a 3×3 filter's tap pairs stay in locals for the channel
    code.get(P.KP).i32(UNROLLED_TAPS).i32Eq().if();
    for (let k = 0; k < UNROLLED_TAPS; k++) {
      code
        .get(P.taps)
        .i32Load(k * 16)
        .set(tapOffsets[k] as number);
      code
        .get(P.taps)
        .v128Load32Splat(k * 16 + 12)
        .set(tapWeights[k] as number);
    }
    // the second row's tap pairs (0, w0) and (w1, w2) from (w0, w1) and (w2, 0)
    for (let kx = 0; kx < 3; kx++) {
      const [a, b] = [tapWeights[kx] as number, tapWeights[3 + kx] as number];
      code
        .get(a)
        .get(b)
        .i8x16Shuffle(HIGH_ZERO_LOW)
        .set(tapWeights2[kx] as number);
      code
        .get(a)
        .get(b)
        .i8x16Shuffle(HIGH_LOW)
        .set(tapWeights2[3 + kx] as number);
    }
    code.end();
    code.get(P.c0).get(c).i32Add().set(j);
    emitRowParams(code, j, row, { bias: P.bias, biasStride: P.biasStride, scale: P.scale, scaleStride: P.scaleStride, flags: P.flags });
    code.get(P.y).get(c).get(P.OH).get(P.OW).i32Mul().i32Mul().get(P.flags).i32(INT_FLAGS.int32Out).i32And().i32Shl();
    code.i32Add().set(ybase);
    /** Stores 8 outputs of row `r` from column oj. */
    const storeRow = (r: number, sums: [number, number]): void => {
      // a step past the row's end stores all 8 lanes too, over the outputs after the row (this
      // tile writes them later), unless fewer than 8 of the tile's outputs are left
      code.get(oj).i32(8).i32Add().get(P.OW).i32LeS();
      code.get(P.count).get(c).i32Sub().get(P.OH).i32Mul().get(P.OW).i32Mul();
      code.get(r).get(P.OW).i32Mul().get(oj).i32Add().i32Sub().i32(8).i32GeS().i32Or().set(full);
      code.get(P.OW).get(oj).i32Sub().set(count);
      code.get(r).get(P.OW).i32Mul().get(oj).i32Add();
      code.get(P.flags).i32(INT_FLAGS.int32Out).i32And().i32Shl();
      code.get(ybase).i32Add().set(dst);
      emitRowStore(code, sums, row, store);
    };
    forLoop(
      code,
      oi,
      () => code.i32(0),
      () => code.get(P.OH),
      () => code.i32(1).get(twoRows).i32Add(),
      () => {
        code.get(P.pairs).get(oi).get(P.rowStep).i32Mul().i32Add().set(rowBase);
        code.get(oi).i32(1).i32Add().set(nextRow);
        code.get(twoRows).get(nextRow).get(P.OH).i32LtS().i32And().if();
        // rows oi and oi + 1 from the same loads: pair rows oi (rows oi, oi + 1) and oi + 2 (rows
        // oi + 2, oi + 3) with taps (w0, w1), (w2, 0) for row oi and (0, w0), (w1, w2) for oi + 1
        // right to left, so that row oi's last step may store past the row over the start of row
        // oi + 1, which a later step writes
        code.get(P.OW).i32(7).i32Add().i32(-8).i32And().i32(8).i32Sub().set(oj);
        code.block().loop();
        code.get(oj).i32(0).i32LtS().brIf(1);
        for (const a of [...accs, ...accs2]) code.get(row.bias).set(a);
        code.get(rowBase).get(oj).i32(2).i32Shl().i32Add().set(src);
        for (let kx = 0; kx < 3; kx++)
          for (const half of [0, 1] as const) {
            code
              .get(src)
              .get(tapOffsets[kx] as number)
              .i32Add()
              .v128Load(half * 16)
              .set(xv);
            code
              .get(src)
              .get(tapOffsets[3 + kx] as number)
              .i32Add()
              .v128Load(half * 16)
              .set(wv);
            for (const [sums, weights] of [
              [accs, tapWeights],
              [accs2, tapWeights2],
            ] as const) {
              code
                .get(sums[half])
                .get(xv)
                .get(weights[kx] as number)
                .i32x4DotI16x8S()
                .i32x4Add();
              code
                .get(wv)
                .get(weights[3 + kx] as number)
                .i32x4DotI16x8S()
                .i32x4Add()
                .set(sums[half]);
            }
          }
        storeRow(oi, accs);
        storeRow(nextRow, accs2);
        code.get(oj).i32(8).i32Sub().set(oj);
        code.br(0).end().end();
        code.else();
        countUp(code, oj, P.OW, 8, () => {
          code.get(row.bias).set(accs[0]);
          code.get(row.bias).set(accs[1]);
          /** Two taps of 8 outputs from the pair rows at the address on the stack. */
          const tap = (weight: () => void): void => {
            code.set(j);
            weight();
            code.set(wv);
            code.get(accs[0]).get(j).v128Load(0).get(wv).i32x4DotI16x8S().i32x4Add().set(accs[0]);
            code.get(accs[1]).get(j).v128Load(16).get(wv).i32x4DotI16x8S().i32x4Add().set(accs[1]);
          };
          code.get(P.KP).i32(UNROLLED_TAPS).i32Eq().if();
          code.get(rowBase).get(oj).i32(2).i32Shl().i32Add().set(src);
          for (let k = 0; k < UNROLLED_TAPS; k++) {
            code
              .get(src)
              .get(tapOffsets[k] as number)
              .i32Add();
            tap(() => code.get(tapWeights[k] as number));
          }
          code.else();
          countUp(code, t, P.KP, 1, () => {
            code.get(rowBase).get(P.taps).get(t).i32(4).i32Shl().i32Add().i32Load(0).i32Add();
            code.get(oj).i32(2).i32Shl().i32Add();
            tap(() => code.get(P.taps).get(t).i32(4).i32Shl().i32Add().v128Load32Splat(12));
          });
          code.end();
          storeRow(oi, accs);
        });
        code.end();
      },
    );
  });
  return { name: fixedFlags === undefined ? 'dwChannels' : `dwChannels_${fixedFlags}`, params, results: [], code };
}

export interface IntConvExports {
  packPairs(x: number, ldx: number, K: number, np: number, panel: number, NP: number, zx: number, signed: number): void;
  packWindows(...args: number[]): void;
  packPadded(...args: number[]): void;
  igemm(...args: number[]): void;
  igemv(...args: number[]): void;
  dwChannels(...args: number[]): void;
}

/**
 * The flag sets with specialised copies of igemm, igemv and dwChannels (`igemm_<flags>`,
 * `igemv_<flags>`, `dwChannels_<flags>`): the requantizing float32 store with a bias (a quantized model's
 * convolutions), any signs.
 */
export const SPECIALISED_INT_FLAGS: readonly number[] = Array.from({ length: 8 }, (_, i) => {
  const bit = (b: number, flag: number) => ((i >> b) & 1 ? flag : 0);
  return bit(0, INT_FLAGS.weightsSigned) | bit(1, INT_FLAGS.inputSigned) | bit(2, INT_FLAGS.outSigned) | INT_FLAGS.bias;
});

export function intConvFunctions(): FunctionDef[] {
  return [
    packPairsFunction(),
    packWindowsFunction(),
    packPaddedFunction(),
    igemmFunction(),
    igemvFunction(),
    dwChannelsFunction(),
    ...SPECIALISED_INT_FLAGS.flatMap((f) => [igemmFunction(f), igemvFunction(f), dwChannelsFunction(f)]),
  ];
}

import type { LinearMemory } from '@tsge/metadef';
import { Code, type FunctionDef, I32, V128, type ValType } from './emitter.js';
import { extraModule } from './extra-modules.js';

/** `i8x16Shuffle` lanes interleaving floats 0, 1 of two vectors: a0 b0 a1 b1. */
const LOW_PAIRS: readonly number[] = [0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23];
/** Interleaves floats 2, 3 of two vectors: a2 b2 a3 b3. */
const HIGH_PAIRS: readonly number[] = LOW_PAIRS.map((b) => b + 8);

/**
 * Generates `convTransposeSpread(col, y, W, hr, KH, KW, mg, OW, plane)`: spreads the GEMM result
 * of a stride = kernel ConvTranspose over its output grid. `col` holds mg·KH·KW rows (m, kh, kw)
 * of hr·W floats (input row h, column iw); col[(m, kh, kw)][h·W + iw] goes to output channel m
 * (planes `plane` bytes apart from `y`), row h·KH + kh, column iw·KW + kw (rows OW floats long).
 * For KW = 2 two col rows are interleaved by shuffles, four inputs each to eight outputs a step;
 * other KW store one float at a time with stride KW. All addresses and `plane` are bytes.
 */
function convTransposeSpreadFunction(): FunctionDef {
  const [col, y, W, hr, KH, KW, mg, OW, plane] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const code = new Code(9);
  const m = code.local(I32);
  const kh = code.local(I32);
  const h = code.local(I32);
  const kw = code.local(I32);
  const rowBytes = code.local(I32);
  const src = code.local(I32);
  const dst = code.local(I32);
  const s = code.local(I32);
  const d = code.local(I32);
  const end = code.local(I32);
  const a = code.local(V128);
  const b = code.local(V128);

  code.get(hr).get(W).i32Mul().i32(2).i32Shl().set(rowBytes);
  code.i32(0).set(m);
  code.block().loop();
  code.get(m).get(mg).i32GeS().brIf(1);
  code.i32(0).set(kh);
  code.block().loop();
  code.get(kh).get(KH).i32GeS().brIf(1);
  code.i32(0).set(h);
  code.block().loop();
  code.get(h).get(hr).i32GeS().brIf(1);
  // src = col row (m, kh, 0) at input row h; dst = output row h·KH + kh of channel m
  code.get(m).get(KH).i32Mul().get(kh).i32Add().get(KW).i32Mul().get(rowBytes).i32Mul();
  code.get(h).get(W).i32Mul().i32(2).i32Shl().i32Add().get(col).i32Add().set(src);
  code.get(m).get(plane).i32Mul().get(y).i32Add();
  code.get(h).get(KH).i32Mul().get(kh).i32Add().get(OW).i32Mul().i32(2).i32Shl().i32Add().set(dst);
  code.get(KW).i32(2).i32Eq().if();
  code.get(src).set(s);
  code.get(dst).set(d);
  code.get(W).i32(-4).i32And().i32(2).i32Shl().get(src).i32Add().set(end);
  code.block().loop();
  code.get(s).get(end).i32GeU().brIf(1);
  code.get(s).v128Load().set(a);
  code.get(s).get(rowBytes).i32Add().v128Load().set(b);
  code.get(d).get(a).get(b).i8x16Shuffle(LOW_PAIRS).v128Store();
  code.get(d).get(a).get(b).i8x16Shuffle(HIGH_PAIRS).v128Store(16);
  code.get(s).i32(16).i32Add().set(s);
  code.get(d).i32(32).i32Add().set(d);
  code.br(0).end().end();
  // vector tail: the last W mod 4 columns one pair at a time
  code.get(W).i32(2).i32Shl().get(src).i32Add().set(end);
  code.block().loop();
  code.get(s).get(end).i32GeU().brIf(1);
  code.get(d).get(s).f32Load().f32Store();
  code.get(d).get(s).get(rowBytes).i32Add().f32Load().f32Store(4);
  code.get(s).i32(4).i32Add().set(s);
  code.get(d).i32(8).i32Add().set(d);
  code.br(0).end().end();
  code.else();
  code.i32(0).set(kw);
  code.block().loop();
  code.get(kw).get(KW).i32GeS().brIf(1);
  code.get(kw).get(rowBytes).i32Mul().get(src).i32Add().set(s);
  code.get(kw).i32(2).i32Shl().get(dst).i32Add().set(d);
  code.get(W).i32(2).i32Shl().get(s).i32Add().set(end);
  code.block().loop();
  code.get(s).get(end).i32GeU().brIf(1);
  code.get(d).get(s).f32Load().f32Store();
  code.get(s).i32(4).i32Add().set(s);
  code.get(d).get(KW).i32(2).i32Shl().i32Add().set(d);
  code.br(0).end().end();
  code.get(kw).i32(1).i32Add().set(kw);
  code.br(0).end().end();
  code.end();
  code.get(h).i32(1).i32Add().set(h);
  code.br(0).end().end();
  code.get(kh).i32(1).i32Add().set(kh);
  code.br(0).end().end();
  code.get(m).i32(1).i32Add().set(m);
  code.br(0).end().end();
  return { name: 'convTransposeSpread', params: new Array<ValType>(9).fill(I32), results: [], code };
}

export type ConvTransposeSpread = (
  col: number,
  y: number,
  W: number,
  hr: number,
  KH: number,
  KW: number,
  mg: number,
  OW: number,
  plane: number,
) => void;

const spreadExports = extraModule('convTransposeSpread', () => [convTransposeSpreadFunction()]);

/** The SIMD spread of a stride = kernel ConvTranspose's columns over `memory`; undefined without SIMD. */
export function convTransposeSpread(memory: LinearMemory): ConvTransposeSpread | undefined {
  return spreadExports(memory)?.convTransposeSpread as ConvTransposeSpread | undefined;
}

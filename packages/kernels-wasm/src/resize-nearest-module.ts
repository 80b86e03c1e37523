import type { LinearMemory } from '@tsge/metadef';
import { Code, F32, type FunctionDef, I32, V128, type ValType } from './emitter.js';
import { extraModule } from './extra-modules.js';

/** `i8x16Shuffle` lanes repeating float `j` of a vector four times. */
const splatLane = (j: number): number[] => Array.from({ length: 16 }, (_, b) => 4 * j + (b & 3));
/** Floats 0, 0, 1, 1 and 2, 2, 3, 3 of a vector. */
const LOW_TWICE: readonly number[] = [0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 4, 5, 6, 7];
const HIGH_TWICE: readonly number[] = LOW_TWICE.map((b) => b + 8);

/**
 * Generates `upsampleRows(x, y, W, fh, fw, r0, r1)`: nearest upsampling by integer factors of the
 * input rows [r0, r1) of W floats at byte address x (rows of all planes back to back): input row r
 * goes to the fh output rows [r·fh, r·fh + fh) of W·fw floats at y, each input float repeated fw
 * times. Every output vector is built once from a loaded input vector (shuffles for fw = 2, a lane
 * splat for fw a multiple of 4, the vector itself for fw = 1) and stored into all fh rows, so no
 * output row is read back; other fw, and the last W mod 4 columns, go one float at a time.
 */
function upsampleRowsFunction(): FunctionDef {
  const [x, y, W, fh, fw, r0, r1] = [0, 1, 2, 3, 4, 5, 6];
  const code = new Code(7);
  const r = code.local(I32);
  const src = code.local(I32);
  const dst = code.local(I32);
  const outRow = code.local(I32);
  const i = code.local(I32);
  const vecEnd = code.local(I32);
  const rowEnd = code.local(I32);
  const o = code.local(I32);
  const q = code.local(I32);
  const j = code.local(I32);
  const k = code.local(I32);
  const at = code.local(I32);
  const v = code.local(V128);
  const s = code.local(V128);
  const f = code.local(F32);

  /** Stores `value` (V128 or F32 local) at byte `addr` + k·outRow for k < fh. */
  const storeRows = (addr: number, value: number, vector: boolean): void => {
    code.get(addr).set(at);
    code.i32(0).set(k);
    code.block().loop();
    code.get(k).get(fh).i32GeS().brIf(1);
    code.get(at).get(value);
    if (vector) code.v128Store();
    else code.f32Store();
    code.get(at).get(outRow).i32Add().set(at);
    code.get(k).i32(1).i32Add().set(k);
    code.br(0).end().end();
  };

  code.get(W).get(fw).i32Mul().i32(2).i32Shl().set(outRow);
  code.get(W).i32(2).i32Shl().set(rowEnd);
  // the vector loop covers whole groups of 4 inputs when fw is 1, 2 or a multiple of 4
  code.get(W).i32(-4).i32And().i32(2).i32Shl().i32(0);
  code.get(fw).i32(3).i32And().i32Eqz().get(fw).i32(1).i32Eq().i32Or().get(fw).i32(2).i32Eq().i32Or();
  code.select().set(vecEnd);
  code.get(r0).set(r);
  code.block().loop();
  code.get(r).get(r1).i32GeS().brIf(1);
  code.get(r).get(rowEnd).i32Mul().get(x).i32Add().set(src);
  code.get(r).get(fh).i32Mul().get(outRow).i32Mul().get(y).i32Add().set(dst);
  code.i32(0).set(i);
  code.block().loop();
  code.get(i).get(vecEnd).i32GeS().brIf(1);
  code.get(src).get(i).i32Add().v128Load().set(v);
  code.get(i).get(fw).i32Mul().get(dst).i32Add().set(o);
  code.get(fw).i32(2).i32Eq().if();
  code.get(v).get(v).i8x16Shuffle(LOW_TWICE).set(s);
  storeRows(o, s, true);
  code.get(o).i32(16).i32Add().set(o);
  code.get(v).get(v).i8x16Shuffle(HIGH_TWICE).set(s);
  storeRows(o, s, true);
  code.else();
  code.get(fw).i32(1).i32Eq().if();
  storeRows(o, v, true);
  code.else();
  for (let lane = 0; lane < 4; lane++) {
    code.get(v).get(v).i8x16Shuffle(splatLane(lane)).set(s);
    code.i32(0).set(q);
    code.block().loop();
    code.get(q).get(fw).i32GeS().brIf(1);
    storeRows(o, s, true);
    code.get(o).i32(16).i32Add().set(o);
    code.get(q).i32(4).i32Add().set(q);
    code.br(0).end().end();
  }
  code.end();
  code.end();
  code.get(i).i32(16).i32Add().set(i);
  code.br(0).end().end();
  // the remaining inputs one float at a time
  code.block().loop();
  code.get(i).get(rowEnd).i32GeS().brIf(1);
  code.get(src).get(i).i32Add().f32Load().set(f);
  code.get(i).get(fw).i32Mul().get(dst).i32Add().set(o);
  code.i32(0).set(j);
  code.block().loop();
  code.get(j).get(fw).i32GeS().brIf(1);
  storeRows(o, f, false);
  code.get(o).i32(4).i32Add().set(o);
  code.get(j).i32(1).i32Add().set(j);
  code.br(0).end().end();
  code.get(i).i32(4).i32Add().set(i);
  code.br(0).end().end();
  code.get(r).i32(1).i32Add().set(r);
  code.br(0).end().end();
  return { name: 'upsampleRows', params: new Array<ValType>(7).fill(I32), results: [], code };
}

export type UpsampleRows = (x: number, y: number, W: number, fh: number, fw: number, r0: number, r1: number) => void;

const upsampleExports = extraModule('resizeNearest', () => [upsampleRowsFunction()]);

/** The SIMD integer-factor nearest upsampling over `memory`; undefined without SIMD. */
export function upsampleRows(memory: LinearMemory): UpsampleRows | undefined {
  return upsampleExports(memory)?.upsampleRows as UpsampleRows | undefined;
}

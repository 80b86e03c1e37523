import type { LinearMemory } from '@tsge/metadef';
import { Code, type FunctionDef, I32, V128 } from './emitter.js';
import { extraModule } from './extra-modules.js';
import type { NumberTuple } from './tiles.js';

/** Byte lanes of f32 lane k of the first (v = 0) or second (v = 1) shuffle operand. */
const lane = (v: number, k: number): number[] => [0, 1, 2, 3].map((b) => v * 16 + 4 * k + b);

/**
 * Generates `transpose32(s, o, rows, columns, sa, sq)`: o[i·sq + 4j] = s[j·sa + 4i] for 4-byte
 * words, i < rows, j < columns (addresses and strides in bytes). The 4-aligned part moves as 4×4
 * tiles (four loads, eight shuffles, four stores) in 32×32 blocks that stay in L1; the edges move
 * one word at a time. Loads and stores keep float bit patterns (NaN payloads) as they are.
 */
function transpose32Function(): FunctionDef {
  const [s, o, rows, columns, sa, sq] = [0, 1, 2, 3, 4, 5];
  const code = new Code(6);
  const rows4 = code.local(I32);
  const columns4 = code.local(I32);
  const i0 = code.local(I32);
  const i1 = code.local(I32);
  const j0 = code.local(I32);
  const j1 = code.local(I32);
  const i = code.local(I32);
  const j = code.local(I32);
  const from = code.local(I32);
  const to = code.local(I32);
  const [r0, r1, r2, r3, t0, t1, t2, t3] = Array.from({ length: 8 }, () => code.local(V128)) as NumberTuple<8>;
  /** while (counter < limit) { body; counter += step } */
  const loop = (counter: number, limit: number, step: number, body: () => void): void => {
    code.block().loop();
    code.get(counter).get(limit).i32GeS().brIf(1);
    body();
    code.get(counter).i32(step).i32Add().set(counter);
    code.br(0).end().end();
  };
  /** target = min(start + 32, limit) */
  const blockEnd = (target: number, start: number, limit: number): void => {
    code.get(start).i32(32).i32Add().get(limit).get(start).i32(32).i32Add().get(limit).i32LtS().select().set(target);
  };
  /** Word by word over i in [iFrom, iTo), j in [jFrom, jTo) (locals). */
  const words = (iFrom: number, iTo: number, jFrom: number, jTo: number): void => {
    code.get(iFrom).set(i);
    loop(i, iTo, 1, () => {
      code.get(jFrom).set(j);
      loop(j, jTo, 1, () => {
        code.get(o).get(i).get(sq).i32Mul().i32Add().get(j).i32(2).i32Shl().i32Add();
        code.get(s).get(j).get(sa).i32Mul().i32Add().get(i).i32(2).i32Shl().i32Add().f32Load();
        code.f32Store();
      });
    });
  };
  code.get(rows).i32(-4).i32And().set(rows4);
  code.get(columns).i32(-4).i32And().set(columns4);
  code.i32(0).set(i0);
  loop(i0, rows4, 32, () => {
    blockEnd(i1, i0, rows4);
    code.i32(0).set(j0);
    loop(j0, columns4, 32, () => {
      blockEnd(j1, j0, columns4);
      code.get(i0).set(i);
      loop(i, i1, 4, () => {
        code.get(j0).set(j);
        loop(j, j1, 4, () => {
          code.get(s).get(j).get(sa).i32Mul().i32Add().get(i).i32(2).i32Shl().i32Add().set(from);
          code.get(from).v128Load().set(r0);
          code.get(from).get(sa).i32Add().tee(from).v128Load().set(r1);
          code.get(from).get(sa).i32Add().tee(from).v128Load().set(r2);
          code.get(from).get(sa).i32Add().v128Load().set(r3);
          code
            .get(r0)
            .get(r1)
            .i8x16Shuffle([...lane(0, 0), ...lane(1, 0), ...lane(0, 1), ...lane(1, 1)])
            .set(t0);
          code
            .get(r0)
            .get(r1)
            .i8x16Shuffle([...lane(0, 2), ...lane(1, 2), ...lane(0, 3), ...lane(1, 3)])
            .set(t1);
          code
            .get(r2)
            .get(r3)
            .i8x16Shuffle([...lane(0, 0), ...lane(1, 0), ...lane(0, 1), ...lane(1, 1)])
            .set(t2);
          code
            .get(r2)
            .get(r3)
            .i8x16Shuffle([...lane(0, 2), ...lane(1, 2), ...lane(0, 3), ...lane(1, 3)])
            .set(t3);
          code.get(o).get(i).get(sq).i32Mul().i32Add().get(j).i32(2).i32Shl().i32Add().set(to);
          const low = [...lane(0, 0), ...lane(0, 1), ...lane(1, 0), ...lane(1, 1)];
          const high = [...lane(0, 2), ...lane(0, 3), ...lane(1, 2), ...lane(1, 3)];
          code.get(to).get(t0).get(t2).i8x16Shuffle(low).v128Store();
          code.get(to).get(sq).i32Add().tee(to).get(t0).get(t2).i8x16Shuffle(high).v128Store();
          code.get(to).get(sq).i32Add().tee(to).get(t1).get(t3).i8x16Shuffle(low).v128Store();
          code.get(to).get(sq).i32Add().get(t1).get(t3).i8x16Shuffle(high).v128Store();
        });
      });
    });
  });
  // edges: the columns past the last multiple of 4 for the aligned rows, then the remaining rows
  const zero = code.local(I32);
  code.i32(0).set(zero);
  words(zero, rows4, columns4, columns);
  words(rows4, rows, zero, columns);
  return { name: 'transpose32', params: [I32, I32, I32, I32, I32, I32], results: [], code };
}

/**
 * Generates `transpose8` or `transpose16(s, o, rows, columns, sa, sq)`: the same permutation as
 * transpose32 for 1- or 2-byte words (strides in bytes), one word at a time in 32×32 blocks. In
 * JavaScript the plane loop is polymorphic over the typed-array kinds and took ~7 ns a byte (a
 * 224×224×3 image from NHWC to NCHW: 1 ms); here it is one load and one store.
 */
function transposeNarrowFunction(width: 1 | 2): FunctionDef {
  const [s, o, rows, columns, sa, sq] = [0, 1, 2, 3, 4, 5];
  const code = new Code(6);
  const [i0, i1, j0, j1, i, j, from, to] = Array.from({ length: 8 }, () => code.local(I32)) as NumberTuple<8>;
  const loop = (counter: number, limit: number, body: () => void, step: () => void): void => {
    code.block().loop();
    code.get(counter).get(limit).i32GeS().brIf(1);
    body();
    step();
    code.br(0).end().end();
  };
  const blockEnd = (target: number, start: number, limit: number): void => {
    code.get(start).i32(32).i32Add().get(limit).get(start).i32(32).i32Add().get(limit).i32LtS().select().set(target);
  };
  const inc = (local: number, by: number) => () => code.get(local).i32(by).i32Add().set(local);
  code.i32(0).set(i0);
  loop(
    i0,
    rows,
    () => {
      blockEnd(i1, i0, rows);
      code.i32(0).set(j0);
      loop(
        j0,
        columns,
        () => {
          blockEnd(j1, j0, columns);
          code.get(i0).set(i);
          loop(
            i,
            i1,
            () => {
              // from = s + j0·sa + i·width, to = o + i·sq + j0·width
              code.get(s).get(j0).get(sa).i32Mul().i32Add().get(i).i32(width).i32Mul().i32Add().set(from);
              code.get(o).get(i).get(sq).i32Mul().i32Add().get(j0).i32(width).i32Mul().i32Add().set(to);
              code.get(j0).set(j);
              loop(
                j,
                j1,
                () => {
                  code.get(to);
                  if (width === 1) code.get(from).i32Load8U().i32Store8();
                  else code.get(from).i32Load16S().i32Store16();
                  code.get(from).get(sa).i32Add().set(from);
                  code.get(to).i32(width).i32Add().set(to);
                },
                inc(j, 1),
              );
            },
            inc(i, 1),
          );
        },
        () => code.get(j1).set(j0),
      );
    },
    () => code.get(i1).set(i0),
  );
  return { name: width === 1 ? 'transpose8' : 'transpose16', params: [I32, I32, I32, I32, I32, I32], results: [], code };
}

/**
 * Generates `copyRows(s, o, count, bytes, sStride, oStride)`: `count` rows of `bytes` bytes (a
 * multiple of 4) from s, s + sStride, … to o, o + oStride, …; 16 bytes a step, then 4.
 */
function copyRowsFunction(): FunctionDef {
  const [s, o, count, bytes, sStride, oStride] = [0, 1, 2, 3, 4, 5];
  const code = new Code(6);
  const r = code.local(I32);
  const at = code.local(I32);
  const vectorEnd = code.local(I32);
  code.get(bytes).i32(-16).i32And().set(vectorEnd);
  code.i32(0).set(r);
  code.block().loop();
  code.get(r).get(count).i32GeS().brIf(1);
  code.i32(0).set(at);
  code.block().loop();
  code.get(at).get(vectorEnd).i32GeS().brIf(1);
  code.get(o).get(at).i32Add().get(s).get(at).i32Add().v128Load().v128Store();
  code.get(at).i32(16).i32Add().set(at);
  code.br(0).end().end();
  code.block().loop();
  code.get(at).get(bytes).i32GeS().brIf(1);
  code.get(o).get(at).i32Add().get(s).get(at).i32Add().f32Load().f32Store();
  code.get(at).i32(4).i32Add().set(at);
  code.br(0).end().end();
  code.get(s).get(sStride).i32Add().set(s);
  code.get(o).get(oStride).i32Add().set(o);
  code.get(r).i32(1).i32Add().set(r);
  code.br(0).end().end();
  return { name: 'copyRows', params: [I32, I32, I32, I32, I32, I32], results: [], code };
}

export type Transpose32 = (s: number, o: number, rows: number, columns: number, sa: number, sq: number) => void;
export type CopyRows = (s: number, o: number, count: number, bytes: number, sStride: number, oStride: number) => void;

/** The WebAssembly word movers over one memory. */
export interface WordMovers {
  readonly transpose32: Transpose32;
  /** transpose32's permutation for 1- and 2-byte words. */
  readonly transpose8: Transpose32;
  readonly transpose16: Transpose32;
  /** Rows of 4-byte words. */
  readonly copyRows: CopyRows;
}

const transposeExports = extraModule('transpose', () => [
  transpose32Function(),
  transposeNarrowFunction(1),
  transposeNarrowFunction(2),
  copyRowsFunction(),
]);

/** The 2-D transposes (1-, 2- and 4-byte words) and row copy over `memory`; undefined without SIMD. */
export function wordMovers(memory: LinearMemory): WordMovers | undefined {
  const exports = transposeExports(memory);
  return exports
    ? {
        transpose32: exports.transpose32 as Transpose32,
        transpose8: exports.transpose8 as Transpose32,
        transpose16: exports.transpose16 as Transpose32,
        copyRows: exports.copyRows as CopyRows,
      }
    : undefined;
}

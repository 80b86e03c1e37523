import { Code, F32, type FunctionDef, I32, V128 } from './emitter.js';

/**
 * Generates `doubleColumns(x, y, W)`: y[2i] = y[2i+1] = x[i] for i < W (nearest ×2 upsampling of
 * one row), four inputs to eight outputs a step by two shuffles.
 */
export function doubleColumnsFunction(): FunctionDef {
  const [x, y, W] = [0, 1, 2];
  const code = new Code(3);
  const at = code.local(I32);
  const end = code.local(I32);
  const v = code.local(V128);
  const f = code.local(F32);
  const low = [0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 4, 5, 6, 7];
  const high = [8, 9, 10, 11, 8, 9, 10, 11, 12, 13, 14, 15, 12, 13, 14, 15];
  code.get(W).i32(-4).i32And().i32(2).i32Shl().get(x).i32Add().set(end);
  code.get(x).set(at);
  code.block().loop();
  code.get(at).get(end).i32GeU().brIf(1);
  code.get(at).v128Load().set(v);
  code.get(y).get(v).get(v).i8x16Shuffle(low).v128Store();
  code.get(y).get(v).get(v).i8x16Shuffle(high).v128Store(16);
  code.get(at).i32(16).i32Add().set(at);
  code.get(y).i32(32).i32Add().set(y);
  code.br(0).end().end();
  code.get(W).i32(2).i32Shl().get(x).i32Add().set(end);
  code.block().loop();
  code.get(at).get(end).i32GeU().brIf(1);
  code.get(at).f32Load().set(f);
  code.get(y).get(f).f32Store();
  code.get(y).get(f).f32Store(4);
  code.get(at).i32(4).i32Add().set(at);
  code.get(y).i32(8).i32Add().set(y);
  code.br(0).end().end();
  return { name: 'doubleColumns', params: [I32, I32, I32], results: [], code };
}

export interface ResizeExports {
  doubleColumns(x: number, y: number, W: number): void;
}

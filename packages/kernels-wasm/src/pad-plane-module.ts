import { Code, type FunctionDef, I32, V128, type ValType } from './emitter.js';

/** Locals (or parameters) of `emitPadPlane`: i32 byte addresses and sizes. */
export interface PadPlaneLocals {
  readonly x: number;
  readonly dst: number;
  readonly H: number;
  readonly W: number;
  readonly pt: number;
  readonly pl: number;
  readonly Hp: number;
  readonly Wp: number;
}

/**
 * Emits a copy of an H×W float32 plane at `x` into the Hp×Wp plane at `dst`, input row ih at row
 * ih + pt and column pl. `edge` false fills the border with zeros; `edge` true repeats the nearest
 * input value (rows before and after the input copy its first and last row), so a window whose
 * taps are a contiguous range touching the input sees only duplicates of its own values. `pt` may
 * be negative (a band starting inside the plane).
 */
export function emitPadPlane(code: Code, P: PadPlaneLocals, edge: boolean): void {
  const r = code.local(I32);
  const row = code.local(I32);
  const ih = code.local(I32);
  const i = code.local(I32);
  const n = code.local(I32);
  const from = code.local(I32);
  const to = code.local(I32);
  const fill = code.local(V128);

  /** Stores `fill` into n floats at `to` (both locals, consumed). */
  const fillRun = (): void => {
    code.block().loop();
    code.get(n).i32(4).i32LtS().brIf(1);
    code.get(to).get(fill).v128Store();
    code.get(to).i32(16).i32Add().set(to);
    code.get(n).i32(4).i32Sub().set(n);
    code.br(0).end().end();
    code.block().loop();
    code.get(n).i32Eqz().brIf(1);
    code.get(to).get(fill).f32x4ExtractLane(0).f32Store();
    code.get(to).i32(4).i32Add().set(to);
    code.get(n).i32(1).i32Sub().set(n);
    code.br(0).end().end();
  };
  /** fill = the float at byte address `at` (edge mode), else zero (set once). */
  const fillFrom = (at: () => void): void => {
    if (!edge) return;
    at();
    code.v128Load32Splat().set(fill);
  };

  code.f32(0).f32x4Splat().set(fill);
  code.i32(0).set(r);
  code.block().loop();
  code.get(r).get(P.Hp).i32GeS().brIf(1);
  code.get(P.dst).get(r).get(P.Wp).i32Mul().i32(2).i32Shl().i32Add().set(row);
  code.get(r).get(P.pt).i32Sub().set(ih);
  if (edge) {
    // clamp to the input's rows: the border rows repeat the first or last one
    code.get(ih).i32(0).get(ih).i32(0).i32GtS().select().set(ih);
    code.get(ih).get(P.H).i32(1).i32Sub().get(ih).get(P.H).i32LtS().select().set(ih);
  }
  code.get(ih).get(P.H).i32LtU().if();
  code.get(P.x).get(ih).get(P.W).i32Mul().i32(2).i32Shl().i32Add().set(from);
  code.get(row).set(to);
  code.get(P.pl).set(n);
  fillFrom(() => code.get(from));
  fillRun();
  code.get(P.W).set(i);
  code.block().loop();
  code.get(i).i32(4).i32LtS().brIf(1);
  code.get(to).get(from).v128Load().v128Store();
  code.get(to).i32(16).i32Add().set(to);
  code.get(from).i32(16).i32Add().set(from);
  code.get(i).i32(4).i32Sub().set(i);
  code.br(0).end().end();
  code.block().loop();
  code.get(i).i32Eqz().brIf(1);
  code.get(to).get(from).f32Load().f32Store();
  code.get(to).i32(4).i32Add().set(to);
  code.get(from).i32(4).i32Add().set(from);
  code.get(i).i32(1).i32Sub().set(i);
  code.br(0).end().end();
  code.get(P.Wp).get(P.pl).i32Sub().get(P.W).i32Sub().set(n);
  fillFrom(() => code.get(from).i32(4).i32Sub());
  fillRun();
  code.else();
  code.get(row).set(to);
  code.get(P.Wp).set(n);
  fillRun();
  code.end();
  code.get(r).i32(1).i32Add().set(r);
  code.br(0).end().end();
}

/**
 * Generates `padPlane(x, dst, H, W, pt, pl, Hp, Wp)`: copies an H×W float32 plane into an Hp×Wp
 * one at row pt, column pl, with zeros around it, so a depthwise filter then runs without bounds
 * checks (all vector steps).
 */
export function padPlaneFunction(): FunctionDef {
  const code = new Code(8);
  emitPadPlane(code, { x: 0, dst: 1, H: 2, W: 3, pt: 4, pl: 5, Hp: 6, Wp: 7 }, false);
  const params: ValType[] = new Array<ValType>(8).fill(I32);
  return { name: 'padPlane', params, results: [], code };
}

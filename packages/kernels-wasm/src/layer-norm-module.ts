import type { LinearMemory } from '@tsge/metadef';
import { Code, F32, type FunctionDef, I32, V128, type ValType } from './emitter.js';
import { extraModule } from './extra-modules.js';

/**
 * Generates `layerNormRows(x, y, scale, bias, rows, n, epsilon)` (without `bias` when `withBias` is
 * false): for each of `rows` contiguous rows of n float32, y = (x − mean)/√(var + ε)·scale + bias.
 * Statistics take two passes in float32 lanes: a first mean m₁, then the sums of d = x − m₁ and d²
 * (shifted data: d is small, so Σd² − (Σd)²/n keeps its digits), the mean being m₁ + Σd/n.
 */
function layerNormRowsFunction(withBias: boolean): FunctionDef {
  const params: ValType[] = withBias ? [I32, I32, I32, I32, I32, I32, F32] : [I32, I32, I32, I32, I32, F32];
  const [x, y, scale] = [0, 1, 2];
  const bias = withBias ? 3 : -1;
  const [rows, n, epsilon] = withBias ? [4, 5, 6] : [3, 4, 5];
  const code = new Code(params.length);
  const row = code.local(I32);
  const at = code.local(I32);
  const vectorEnd = code.local(I32);
  const end = code.local(I32);
  const count = code.local(F32);
  const sum = code.local(F32);
  const squares = code.local(F32);
  const mean = code.local(F32);
  const inv = code.local(F32);
  const shift = code.local(F32);
  const d = code.local(F32);
  const acc = code.local(V128);
  const accSquares = code.local(V128);
  const v = code.local(V128);
  const meanV = code.local(V128);
  const invV = code.local(V128);
  const shiftV = code.local(V128);
  /** Leaves the sum of the four lanes of `vector` on the stack. */
  const lanes = (vector: number): void => {
    code.get(vector).f32x4ExtractLane(0).get(vector).f32x4ExtractLane(1).f32Add();
    code.get(vector).f32x4ExtractLane(2).get(vector).f32x4ExtractLane(3).f32Add().f32Add();
  };
  /** for (at = from; at < to; at += step) body */
  const loop = (from: number, to: number, step: number, body: () => void): void => {
    code.get(from).set(at);
    code.block().loop();
    code.get(at).get(to).i32GeS().brIf(1);
    body();
    code.get(at).i32(step).i32Add().set(at);
    code.br(0).end().end();
  };
  const zero = code.local(I32);
  code.i32(0).set(zero);
  code.get(n).i32(-4).i32And().i32(2).i32Shl().set(vectorEnd);
  code.get(n).i32(2).i32Shl().set(end);
  code.get(n).f32ConvertI32S().set(count);
  code.i32(0).set(row);
  code.block().loop();
  code.get(row).get(rows).i32GeS().brIf(1);
  // pass 1: a first mean
  code.f32x4Const(0).set(acc);
  loop(zero, vectorEnd, 16, () => code.get(acc).get(x).get(at).i32Add().v128Load().f32x4Add().set(acc));
  lanes(acc);
  code.set(sum);
  loop(vectorEnd, end, 4, () => code.get(sum).get(x).get(at).i32Add().f32Load().f32Add().set(sum));
  code.get(sum).get(count).f32Div().set(mean);
  // pass 2: Σd and Σd² about it
  code.get(mean).f32x4Splat().set(meanV);
  code.f32x4Const(0).set(acc);
  code.f32x4Const(0).set(accSquares);
  loop(zero, vectorEnd, 16, () => {
    code.get(x).get(at).i32Add().v128Load().get(meanV).f32x4Sub().set(v);
    code.get(acc).get(v).f32x4Add().set(acc);
    code.get(accSquares).get(v).get(v).f32x4Mul().f32x4Add().set(accSquares);
  });
  lanes(acc);
  code.set(sum);
  lanes(accSquares);
  code.set(squares);
  loop(vectorEnd, end, 4, () => {
    code.get(x).get(at).i32Add().f32Load().get(mean).f32Sub().set(d);
    code.get(sum).get(d).f32Add().set(sum);
    code.get(squares).get(d).get(d).f32Mul().f32Add().set(squares);
  });
  // inv = 1/√((Σd² − (Σd)²/n)/n + ε); the mean is m₁ + shift, shift = Σd/n (kept apart: m₁ + shift
  // would round to m₁'s precision, far coarser than the spread when |mean| ≫ std)
  code.f32(1);
  code.get(squares).get(sum).get(sum).f32Mul().get(count).f32Div().f32Sub().get(count).f32Div().get(epsilon).f32Add();
  code.bytes.push(0x91); // f32.sqrt
  code.f32Div().set(inv);
  code.get(sum).get(count).f32Div().set(shift);
  // pass 3: the output, x − m₁ (exact for x near m₁) before the small correction
  code.get(shift).f32x4Splat().set(shiftV);
  code.get(inv).f32x4Splat().set(invV);
  loop(zero, vectorEnd, 16, () => {
    code.get(y).get(at).i32Add();
    code.get(x).get(at).i32Add().v128Load().get(meanV).f32x4Sub().get(shiftV).f32x4Sub().get(invV).f32x4Mul();
    code.get(scale).get(at).i32Add().v128Load().f32x4Mul();
    if (withBias) code.get(bias).get(at).i32Add().v128Load().f32x4Add();
    code.v128Store();
  });
  loop(vectorEnd, end, 4, () => {
    code.get(y).get(at).i32Add();
    code.get(x).get(at).i32Add().f32Load().get(mean).f32Sub().get(shift).f32Sub().get(inv).f32Mul();
    code.get(scale).get(at).i32Add().f32Load().f32Mul();
    if (withBias) code.get(bias).get(at).i32Add().f32Load().f32Add();
    code.f32Store();
  });
  code.get(x).get(end).i32Add().set(x);
  code.get(y).get(end).i32Add().set(y);
  code.get(row).i32(1).i32Add().set(row);
  code.br(0).end().end();
  return { name: withBias ? 'layerNormRowsBias' : 'layerNormRows', params, results: [], code };
}

/**
 * Generates `rmsNormRows(x, y, scale, rows, n, epsilon)`: for each of `rows` contiguous rows of n
 * float32, y = x/√(Σx²/n + ε)·scale (RMSNormalization, SimplifiedLayerNormalization): one pass for
 * Σx² in float32 lanes, one for the output.
 */
function rmsNormRowsFunction(): FunctionDef {
  const params: ValType[] = [I32, I32, I32, I32, I32, F32];
  const [x, y, scale, rows, n, epsilon] = [0, 1, 2, 3, 4, 5];
  const code = new Code(params.length);
  const row = code.local(I32);
  const at = code.local(I32);
  const vectorEnd = code.local(I32);
  const end = code.local(I32);
  const zero = code.local(I32);
  const count = code.local(F32);
  const squares = code.local(F32);
  const inv = code.local(F32);
  const d = code.local(F32);
  const acc = code.local(V128);
  const v = code.local(V128);
  const invV = code.local(V128);
  const loop = (from: number, to: number, step: number, body: () => void): void => {
    code.get(from).set(at);
    code.block().loop();
    code.get(at).get(to).i32GeS().brIf(1);
    body();
    code.get(at).i32(step).i32Add().set(at);
    code.br(0).end().end();
  };
  code.i32(0).set(zero);
  code.get(n).i32(-4).i32And().i32(2).i32Shl().set(vectorEnd);
  code.get(n).i32(2).i32Shl().set(end);
  code.get(n).f32ConvertI32S().set(count);
  code.i32(0).set(row);
  code.block().loop();
  code.get(row).get(rows).i32GeS().brIf(1);
  code.f32x4Const(0).set(acc);
  loop(zero, vectorEnd, 16, () => {
    code.get(x).get(at).i32Add().v128Load().set(v);
    code.get(acc).get(v).get(v).f32x4Mul().f32x4Add().set(acc);
  });
  code.get(acc).f32x4ExtractLane(0).get(acc).f32x4ExtractLane(1).f32Add();
  code.get(acc).f32x4ExtractLane(2).get(acc).f32x4ExtractLane(3).f32Add().f32Add().set(squares);
  loop(vectorEnd, end, 4, () => {
    code.get(x).get(at).i32Add().f32Load().set(d);
    code.get(squares).get(d).get(d).f32Mul().f32Add().set(squares);
  });
  code.f32(1);
  code.get(squares).get(count).f32Div().get(epsilon).f32Add();
  code.bytes.push(0x91); // f32.sqrt
  code.f32Div().set(inv);
  code.get(inv).f32x4Splat().set(invV);
  loop(zero, vectorEnd, 16, () => {
    code.get(y).get(at).i32Add();
    code.get(x).get(at).i32Add().v128Load().get(invV).f32x4Mul().get(scale).get(at).i32Add().v128Load().f32x4Mul();
    code.v128Store();
  });
  loop(vectorEnd, end, 4, () => {
    code.get(y).get(at).i32Add();
    code.get(x).get(at).i32Add().f32Load().get(inv).f32Mul().get(scale).get(at).i32Add().f32Load().f32Mul();
    code.f32Store();
  });
  code.get(x).get(end).i32Add().set(x);
  code.get(y).get(end).i32Add().set(y);
  code.get(row).i32(1).i32Add().set(row);
  code.br(0).end().end();
  return { name: 'rmsNormRows', params, results: [], code };
}

/** Rows with a bias; `bias` < 0 runs the variant without one. */
export type LayerNormRows = (x: number, y: number, scale: number, bias: number, rows: number, n: number, epsilon: number) => void;

const layerNormExports = extraModule('layer-norm', () => [
  layerNormRowsFunction(true),
  layerNormRowsFunction(false),
  rmsNormRowsFunction(),
]);

/** The SIMD LayerNormalization rows over `memory`; undefined without SIMD. */
export function layerNormRows(memory: LinearMemory): LayerNormRows | undefined {
  const exports = layerNormExports(memory);
  if (!exports) return undefined;
  const withBias = exports.layerNormRowsBias as (...args: number[]) => void;
  const without = exports.layerNormRows as (...args: number[]) => void;
  return (x, y, scale, bias, rows, n, epsilon) =>
    bias >= 0 ? withBias(x, y, scale, bias, rows, n, epsilon) : without(x, y, scale, rows, n, epsilon);
}

export type RmsNormRows = (x: number, y: number, scale: number, rows: number, n: number, epsilon: number) => void;

/** The SIMD RMS normalization rows over `memory`; undefined without SIMD. */
export function rmsNormRows(memory: LinearMemory): RmsNormRows | undefined {
  return layerNormExports(memory)?.rmsNormRows as RmsNormRows | undefined;
}

import { type KernelDescription, type KernelInstruction, KOp, type RowPass, isRowReductionKOp, isUnaryKOp, rowPasses } from '@tsge/metadef';
import { Code, F32, type FunctionDef, I32, V128, type ValType } from './emitter.js';
import { EMIT, type Emit } from './generated-emit-ops.js';

/**
 * The row function of a row-reduction description, `row(in0, …, y, n)` (byte addresses, n
 * elements): one loop over the row per pass (`rowPasses`), each an f32x4 body and a scalar tail.
 * A reduction accumulates in a vector (its tail in a scalar) during its pass, and after the pass
 * its lanes are combined and splat into the register later passes read; the last pass stores.
 * Inputs whose last-dim stride is 0 (one value per row) are loaded once, and instructions over
 * such values, constants and reduction results only (a variance plus ε, its square root) are
 * computed once per row at the start of their pass, not per element. When the last pass would
 * recompute something costly from the pass before (a softmax's exp), that pass stores the value in
 * the output, which the last pass reads back and overwrites.
 */
export function rowReductionFunction(d: KernelDescription): FunctionDef {
  const k = d.inputs.length;
  const last = d.shape.length - 1;
  const [y, n] = [k, k + 1];
  const code = new Code(k + 2);
  const at = code.local(I32);
  const end = code.local(I32);
  const temp = () => code.local(V128);
  const regs: number[] = d.inputs.map(() => code.local(V128));
  const perRow = d.inputs.map((x) => x.strides[last] === 0);
  for (const c of d.constants) {
    const local = code.local(V128);
    code.f32x4Const(c).set(local);
    regs.push(local);
  }
  for (const _ of d.instructions) regs.push(code.local(V128));
  const first = k + d.constants.length;
  const vectorAcc = new Map<number, number>();
  const scalarAcc = new Map<number, number>();
  d.instructions.forEach((ins, i) => {
    if (ins.op !== KOp.rowSum && ins.op !== KOp.rowMax) return;
    vectorAcc.set(i, code.local(V128));
    scalarAcc.set(i, code.local(F32));
  });
  perRow.forEach((scalar, i) => {
    if (scalar)
      code
        .get(i)
        .v128Load32Splat()
        .set(regs[i] as number);
  });
  // registers holding one value per row
  const uniform: boolean[] = [...perRow, ...d.constants.map(() => true)];
  for (const ins of d.instructions)
    uniform.push(isRowReductionKOp(ins.op) || ((uniform[ins.a] as boolean) && (isUnaryKOp(ins.op) || (uniform[ins.b] as boolean))));
  const evaluate = (list: readonly number[]) => {
    for (const i of list) {
      const ins = d.instructions[i] as KernelInstruction;
      (EMIT[ins.op] as Emit)(code, regs[ins.a] as number, regs[ins.b] as number, temp);
      code.set(regs[first + i] as number);
    }
  };
  const kept = keptValue(d, uniform);
  const plan = rowPasses(d, kept);
  for (const [p, pass] of plan.entries()) {
    const stores = kept !== undefined && p === plan.length - 2;
    const loads = kept !== undefined && pass.store;
    const keptReg = regs[first + (kept ?? 0)] as number;
    const perElement = pass.evaluate.filter((i) => !uniform[first + i]);
    evaluate(pass.evaluate.filter((i) => uniform[first + i]));
    for (const i of pass.accumulate) {
      const identity = (d.instructions[i] as KernelInstruction).op === KOp.rowSum ? 0 : Number.NEGATIVE_INFINITY;
      code.f32x4Const(identity).set(vectorAcc.get(i) as number);
      code.f32(identity).set(scalarAcc.get(i) as number);
    }
    // the f32x4 body over the row's whole vectors
    code.get(n).i32(-4).i32And().i32(2).i32Shl().set(end);
    code.i32(0).set(at);
    code.block().loop();
    code.get(at).get(end).i32GeS().brIf(1);
    perRow.forEach((scalar, i) => {
      if (!scalar)
        code
          .get(i)
          .get(at)
          .i32Add()
          .v128Load()
          .set(regs[i] as number);
    });
    if (loads) code.get(y).get(at).i32Add().v128Load().set(keptReg);
    evaluate(perElement);
    if (stores) code.get(y).get(at).i32Add().get(keptReg).v128Store();
    for (const i of pass.accumulate) {
      const acc = vectorAcc.get(i) as number;
      const ins = d.instructions[i] as KernelInstruction;
      code.get(acc).get(regs[ins.a] as number);
      // f32x4.max gives NaN when either lane is NaN, as ReduceMax does
      if (ins.op === KOp.rowSum) code.f32x4Add();
      else code.f32x4Max();
      code.set(acc);
    }
    if (pass.store)
      code
        .get(y)
        .get(at)
        .i32Add()
        .get(regs[d.output] as number)
        .v128Store();
    code.get(at).i32(16).i32Add().set(at);
    code.br(0).end().end();
    // the scalar tail: each element splat, lane 0 used
    code.get(n).i32(2).i32Shl().set(end);
    code.block().loop();
    code.get(at).get(end).i32GeS().brIf(1);
    perRow.forEach((scalar, i) => {
      if (!scalar)
        code
          .get(i)
          .get(at)
          .i32Add()
          .f32Load()
          .f32x4Splat()
          .set(regs[i] as number);
    });
    if (loads) code.get(y).get(at).i32Add().f32Load().f32x4Splat().set(keptReg);
    evaluate(perElement);
    if (stores) code.get(y).get(at).i32Add().get(keptReg).f32x4ExtractLane(0).f32Store();
    for (const i of pass.accumulate) {
      const acc = scalarAcc.get(i) as number;
      const ins = d.instructions[i] as KernelInstruction;
      code
        .get(acc)
        .get(regs[ins.a] as number)
        .f32x4ExtractLane(0);
      if (ins.op === KOp.rowSum) code.f32Add();
      else code.f32Max();
      code.set(acc);
    }
    if (pass.store)
      code
        .get(y)
        .get(at)
        .i32Add()
        .get(regs[d.output] as number)
        .f32x4ExtractLane(0)
        .f32Store();
    code.get(at).i32(4).i32Add().set(at);
    code.br(0).end().end();
    // lanes (0+1)+(2+3), then the tail; the result splat for the passes after
    for (const i of pass.accumulate) {
      const acc = vectorAcc.get(i) as number;
      const sum = (d.instructions[i] as KernelInstruction).op === KOp.rowSum;
      const combine = () => (sum ? code.f32Add() : code.f32Max());
      code.get(acc).f32x4ExtractLane(0).get(acc).f32x4ExtractLane(1);
      combine();
      code.get(acc).f32x4ExtractLane(2).get(acc).f32x4ExtractLane(3);
      combine();
      combine();
      code.get(scalarAcc.get(i) as number);
      combine();
      code.f32x4Splat().set(regs[first + i] as number);
    }
  }
  return { name: 'row', params: new Array<ValType>(k + 2).fill(I32), results: [], code };
}

/** The emitted cost of an instruction, roughly in SIMD ops: exp and sigmoid are polynomials. */
const cost = (op: number): number => (op === KOp.exp || op === KOp.sigmoid ? 16 : 1);

/**
 * The instruction the pass before the last should store in the output for the last pass to read
 * back: the one saving the most recomputation, if that beats a store and a load; per-element values only.
 */
function keptValue(d: KernelDescription, uniform: readonly boolean[]): number | undefined {
  const plan = rowPasses(d);
  const final = plan[plan.length - 1] as RowPass;
  const before = plan[plan.length - 2];
  if (!before) return undefined;
  const first = d.inputs.length + d.constants.length;
  const total = (list: readonly number[]) => list.reduce((sum, i) => sum + cost((d.instructions[i] as KernelInstruction).op), 0);
  const full = total(final.evaluate);
  let best: number | undefined;
  let saving = 2;
  for (const i of final.evaluate) {
    if (uniform[first + i] || !before.evaluate.includes(i)) continue;
    const s = full - total((rowPasses(d, i)[plan.length - 1] as RowPass).evaluate);
    if (s > saving) {
      best = i;
      saving = s;
    }
  }
  return best;
}

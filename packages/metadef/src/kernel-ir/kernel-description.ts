/**
 * The kernel description IR: a generated kernel as numbers and op codes only (never a string from
 * a model), so a `.om` can carry it and the executor can emit code from it after validating it.
 *
 * An elementwise kernel computes `y[i] = expr(in0[off0(i)], in1[off1(i)], …)` over the output's
 * static shape; each input addresses its elements by one stride per output dim (0 where it is
 * broadcast). The expression is a list of SSA instructions over registers: registers
 * `0..inputs-1` hold the inputs' elements, the next ones the float32 constants, then instruction i
 * writes register `inputs + constants + i`. The same description serves as a Conv's or MatMul's
 * generated epilogue, over the output as [N, C, spatial] or [1, rows, N] with input 0 the op's own
 * value.
 *
 * A row-reduction kernel (`KernelKind.rowReduction`) has the same words, plus instructions that
 * reduce a register along the last dim (`KOp.rowSum`, `rowMax`): the result is one value per row,
 * broadcast back to the row's elements, so softmax and norm chains are one kernel. It runs in
 * passes over each row: an instruction is computed in the pass after the last reduction it
 * depends on (`registerPasses`), reductions accumulate during the pass of their operand.
 *
 * A run-time-sized description (`runtime-sized.ts`) has dims of `RUNTIME_DIM` and inputs of size
 * `RUNTIME_DIM` whose strides are all `CONTIGUOUS`; it is read only where asked for
 * (`{ runtimeSized: true }`) and resolved to a static one from a run's shapes before it runs.
 */
import { TsgeError } from '../errors/tsge-error.js';

export const KERNEL_DESCRIPTION_MAGIC = 0x3144_4b54; // 'TKD1' little-endian
export const KERNEL_DESCRIPTION_VERSION = 1;

export const KernelKind = { elementwise: 1, rowReduction: 2 } as const;
/** A dim (or an input's size) known only at run time: the output's, resolved by the kernel. */
export const RUNTIME_DIM = 0;
/** The stride of an input of run-time size: it has the output's dims, so it walks the output's layout. */
export const CONTIGUOUS = -1;
export const KernelDtype = { float32: 1 } as const;

/** Op codes of the per-element expression: 1..31 unary (b unused, 0), 32..63 binary. */
export const KOp = {
  neg: 1,
  abs: 2,
  relu: 3,
  sigmoid: 4,
  tanh: 5,
  exp: 6,
  log: 7,
  sqrt: 8,
  reciprocal: 9,
  floor: 10,
  ceil: 11,
  erf: 12,
  copy: 13,
  add: 32,
  sub: 33,
  mul: 34,
  div: 35,
  max: 36,
  min: 37,
  pow: 38,
  /** a ≥ 0 ? a : a·b (LeakyRelu with slope b) */
  leaky: 39,
  /** a < b ? b : a: a lower clamp that keeps NaN of a (Clip's min) */
  clampLo: 40,
  /** a > b ? b : a: an upper clamp that keeps NaN of a (Clip's max) */
  clampHi: 41,
  /** the sum of register a over the row (64..95: row reductions, b unused, row-reduction kernels only) */
  rowSum: 64,
  /** the maximum of register a over the row (NaN if any element is NaN) */
  rowMax: 65,
} as const;
/** An op code of `KOp` (a number: descriptions are validated against the known codes on read). */
export type KOpCode = number;
const OPCODES = new Set<number>(Object.values(KOp));
export const isUnaryKOp = (op: number): boolean => op >= 1 && op < 32;
export const isRowReductionKOp = (op: number): boolean => op >= 64 && op < 96;
const hasOneOperand = (op: number): boolean => isUnaryKOp(op) || isRowReductionKOp(op);

export interface KernelInstruction {
  readonly op: KOpCode;
  readonly a: number;
  readonly b: number;
}

export interface KernelInputDesc {
  /** Elements of the input tensor (its static size). */
  readonly size: number;
  /** Element stride per output dim (0 where broadcast). */
  readonly strides: readonly number[];
}

export interface KernelDescription {
  /** `KernelKind.elementwise` or `KernelKind.rowReduction` */
  readonly kind: 1 | 2;
  /** `KernelDtype.float32` */
  readonly dtype: 1;
  readonly shape: readonly number[];
  readonly inputs: readonly KernelInputDesc[];
  /** float32 constants (registers after the inputs). */
  readonly constants: readonly number[];
  readonly instructions: readonly KernelInstruction[];
  /** The register stored to the output. */
  readonly output: number;
  /** Lanes of the vector loop (4 for SIMD128); the rest of a row runs as a scalar tail. */
  readonly vectorWidth: number;
}

/** Limits checked on read: a description is small, and every index it holds stays in range. */
export const KERNEL_LIMITS = {
  rank: 8,
  inputs: 32,
  constants: 256,
  instructions: 512,
  words: 8192,
  elements: 2 ** 30,
  /** reductions one after another in a row-reduction kernel (each is a pass over the row) */
  passes: 8,
} as const;

/** Serializes a description as little-endian int32 words (float constants as their bits). */
export function encodeKernelDescription(d: KernelDescription): Int32Array {
  const words: number[] = [KERNEL_DESCRIPTION_MAGIC, KERNEL_DESCRIPTION_VERSION, d.kind, d.dtype, d.shape.length, ...d.shape];
  words.push(d.inputs.length);
  for (const input of d.inputs) words.push(input.size, ...input.strides);
  words.push(d.constants.length);
  const bits = new Int32Array(new Float32Array(d.constants).buffer);
  words.push(...bits);
  words.push(d.instructions.length);
  for (const ins of d.instructions) words.push(ins.op, ins.a, ins.b);
  words.push(d.output, d.vectorWidth);
  return Int32Array.from(words);
}

class DescriptionProblem extends Error {
  constructor(
    message: string,
    readonly malformed = false,
  ) {
    super(message);
  }
}

/**
 * Reads and validates a description: magic, version, kinds, sizes within limits, each input's
 * strides reaching only inside the input, op codes known, every operand a register defined before
 * its use, the output register defined. Anything else is TSGE-E7100 (malformed) or E7101 (a value
 * out of range), naming `where` (the kernel's index or node); a row reduction in an elementwise
 * kernel, or a row-reduction kernel without one, is E7104.
 */
export function decodeKernelDescription(
  words: ArrayLike<number>,
  where: string,
  options: { readonly runtimeSized?: boolean } = {},
): KernelDescription {
  let d: KernelDescription;
  try {
    d = decodeWords(words, options.runtimeSized === true);
  } catch (e) {
    if (!(e instanceof DescriptionProblem)) throw e;
    throw TsgeError.of(e.malformed ? 'TSGE-E7100' : 'TSGE-E7101', { kernel: where, reason: e.message });
  }
  const reductions = d.instructions.filter((i) => isRowReductionKOp(i.op)).length;
  if (d.kind === KernelKind.elementwise && reductions > 0)
    throw TsgeError.of('TSGE-E7104', { kernel: where, reason: `an elementwise kernel with ${reductions} row reductions` });
  if (d.kind === KernelKind.rowReduction && reductions === 0)
    throw TsgeError.of('TSGE-E7104', { kernel: where, reason: 'a row-reduction kernel without a row reduction' });
  const passes = Math.max(...registerPasses(d));
  if (passes >= KERNEL_LIMITS.passes)
    throw TsgeError.of('TSGE-E7104', { kernel: where, reason: `${passes} reductions in sequence, more than ${KERNEL_LIMITS.passes - 1}` });
  return d;
}

/**
 * The pass over a row in which each register's value is known: inputs and constants in pass 0,
 * an instruction in the latest pass of its operands, a row reduction one pass after its operand's
 * (it accumulates during that pass). An elementwise kernel is all pass 0.
 */
export function registerPasses(d: KernelDescription): number[] {
  const passes: number[] = new Array<number>(d.inputs.length + d.constants.length).fill(0);
  for (const ins of d.instructions) {
    const a = passes[ins.a] as number;
    if (isRowReductionKOp(ins.op)) passes.push(a + 1);
    else passes.push(hasOneOperand(ins.op) ? a : Math.max(a, passes[ins.b] as number));
  }
  return passes;
}

function decodeWords(words: ArrayLike<number>, runtimeSized: boolean): KernelDescription {
  if (words.length > KERNEL_LIMITS.words) throw new DescriptionProblem(`${words.length} words, more than ${KERNEL_LIMITS.words}`);
  let p = 0;
  const next = (what: string): number => {
    if (p >= words.length) throw new DescriptionProblem(`truncated: ${what} missing at word ${p}`, true);
    const v = words[p++] as number;
    if (!Number.isInteger(v)) throw new DescriptionProblem(`word ${p - 1} (${what}) is not an integer`, true);
    return v;
  };
  const bounded = (what: string, lo: number, hi: number): number => {
    const v = next(what);
    if (v < lo || v > hi) throw new DescriptionProblem(`${what} ${v} outside ${lo}..${hi}`);
    return v;
  };
  if (next('magic') !== KERNEL_DESCRIPTION_MAGIC) throw new DescriptionProblem('bad magic', true);
  const version = next('version');
  if (version !== KERNEL_DESCRIPTION_VERSION) throw new DescriptionProblem(`version ${version}, known ${KERNEL_DESCRIPTION_VERSION}`, true);
  const kind = bounded('kind', KernelKind.elementwise, KernelKind.rowReduction) as 1 | 2;
  const dtype = bounded('dtype', KernelDtype.float32, KernelDtype.float32) as 1;
  const rank = bounded('rank', 1, KERNEL_LIMITS.rank);
  const shape: number[] = [];
  let elements = 1;
  for (let i = 0; i < rank; i++) {
    const dim = bounded(`dim ${i}`, runtimeSized ? RUNTIME_DIM : 1, KERNEL_LIMITS.elements);
    elements *= Math.max(dim, 1);
    if (elements > KERNEL_LIMITS.elements) throw new DescriptionProblem(`output of more than ${KERNEL_LIMITS.elements} elements`);
    shape.push(dim);
  }
  const inputCount = bounded('input count', 1, KERNEL_LIMITS.inputs);
  const inputs: KernelInputDesc[] = [];
  for (let k = 0; k < inputCount; k++) {
    const size = bounded(`input ${k} size`, runtimeSized ? RUNTIME_DIM : 1, KERNEL_LIMITS.elements);
    const strides: number[] = [];
    let last = 0;
    for (let i = 0; i < rank; i++) {
      // an input of run-time size walks the output's layout; a static one never steps along a run-time dim
      const s =
        size === RUNTIME_DIM
          ? bounded(`input ${k} stride ${i}`, CONTIGUOUS, CONTIGUOUS)
          : bounded(`input ${k} stride ${i}`, 0, shape[i] === RUNTIME_DIM ? 0 : KERNEL_LIMITS.elements);
      strides.push(s);
      last += Math.max(s, 0) * Math.max((shape[i] as number) - 1, 0);
    }
    if (size !== RUNTIME_DIM && last >= size)
      throw new DescriptionProblem(`input ${k}: strides reach element ${last} of an input of ${size}`);
    inputs.push({ size, strides });
  }
  const constantCount = bounded('constant count', 0, KERNEL_LIMITS.constants);
  const bits = new Int32Array(constantCount);
  for (let i = 0; i < constantCount; i++) bits[i] = next(`constant ${i}`);
  const constants = Array.from(new Float32Array(bits.buffer));
  const instructionCount = bounded('instruction count', 1, KERNEL_LIMITS.instructions);
  const instructions: KernelInstruction[] = [];
  const first = inputCount + constantCount;
  for (let i = 0; i < instructionCount; i++) {
    const op = next(`instruction ${i} op`);
    if (!OPCODES.has(op)) throw new DescriptionProblem(`instruction ${i}: unknown op code ${op}`);
    const defined = first + i - 1;
    const a = bounded(`instruction ${i} operand a`, 0, defined);
    const b = hasOneOperand(op) ? bounded(`instruction ${i} operand b`, 0, 0) : bounded(`instruction ${i} operand b`, 0, defined);
    instructions.push({ op, a, b });
  }
  const output = bounded('output register', 0, first + instructionCount - 1);
  const vectorWidth = next('vector width');
  if (vectorWidth !== 1 && vectorWidth !== 4) throw new DescriptionProblem(`vector width ${vectorWidth} outside {1, 4}`);
  if (p !== words.length) throw new DescriptionProblem(`${words.length - p} words after the end`, true);
  return { kind, dtype, shape, inputs, constants, instructions, output, vectorWidth };
}

/** What one pass over a row computes: instructions (in order) and the reductions that accumulate. */
export interface RowPass {
  /** Indices of the non-reduction instructions to evaluate, each needed by this pass. */
  readonly evaluate: readonly number[];
  /** Indices of the row-reduction instructions whose operand this pass computes. */
  readonly accumulate: readonly number[];
  /** Whether this pass stores the output (the last one). */
  readonly store: boolean;
}

/**
 * The passes of a description over each row, up to the output's (one for an elementwise kernel):
 * each evaluates only what its reductions, or the output, need; a value computed in an earlier
 * pass is recomputed rather than stored (inputs are read again instead of a row being buffered),
 * except instruction `kept`, whose value the last pass reads back (an emitter that stored it in
 * the output during the pass before: a softmax's exp, then not computed twice).
 */
export function rowPasses(d: KernelDescription, kept?: number): RowPass[] {
  const passes = registerPasses(d);
  const first = d.inputs.length + d.constants.length;
  const last = passes[d.output] as number;
  const plan: RowPass[] = [];
  for (let p = 0; p <= last; p++) {
    const needed = new Set<number>();
    const accumulate: number[] = [];
    const need = (r: number) => {
      if (r >= first) needed.add(r - first);
    };
    if (p === last) need(d.output);
    // a reduction accumulating in the last pass could feed nothing that is stored
    d.instructions.forEach((ins, i) => {
      if (isRowReductionKOp(ins.op) && passes[ins.a] === p && p < last) {
        accumulate.push(i);
        need(ins.a);
      }
    });
    // walk back: an evaluated instruction needs its operands of this pass (earlier reductions are known)
    for (let i = d.instructions.length - 1; i >= 0; i--) {
      if (!needed.has(i)) continue;
      const ins = d.instructions[i] as KernelInstruction;
      if (isRowReductionKOp(ins.op) || (p === last && i === kept)) {
        needed.delete(i);
        continue;
      }
      need(ins.a);
      if (!hasOneOperand(ins.op)) need(ins.b);
    }
    const evaluate = [...needed].filter((i) => !isRowReductionKOp((d.instructions[i] as KernelInstruction).op)).sort((a, b) => a - b);
    plan.push({ evaluate, accumulate, store: p === last });
  }
  return plan;
}

/** Elements of the output. */
export function kernelElements(d: KernelDescription): number {
  return d.shape.reduce((a, b) => a * b, 1);
}

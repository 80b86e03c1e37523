import {
  type KernelContextV1,
  type KernelDescription,
  type KernelInstruction,
  KernelKind,
  KOp,
  TsgeError,
  decodeKernelDescription,
  kernelElements,
  rowPasses,
} from '@tsge/metadef';
import { erf } from '@tsge/ops/kernel-support';

/** Elements a register holds: long enough that each instruction is a tight loop, short enough to stay in L1. */
const BLOCK = 512;
const MAX_CACHED = 4096;
const decoded = new Map<string, KernelDescription>();

/**
 * The description of a generated-kernel node (its `description` attribute), validated once per
 * process and cached by its words (a model's node may be run many times, by many threads).
 */
export function descriptionOf(ctx: KernelContextV1): KernelDescription {
  const words = ctx.attrs.ints('description', []);
  const key = words.join(',');
  let d = decoded.get(key);
  if (!d) {
    if (words.length === 0) throw TsgeError.of('TSGE-E7102', { node: ctx.nodeName, kernel: '(none)', count: 0 });
    // a generated epilogue may be run-time sized: `epilogueDescription` resolves it per run
    d = decodeKernelDescription(words, ctx.nodeName, { runtimeSized: true });
    if (decoded.size >= MAX_CACHED) decoded.clear();
    decoded.set(key, d);
  }
  return d;
}

/** The node's output dims (attribute `shape`), which the description may have collapsed. */
export function outputDims(ctx: KernelContextV1, d: KernelDescription): readonly number[] {
  const dims = ctx.attrs.ints('shape', d.shape);
  if (dims.reduce((a, b) => a * b, 1) !== kernelElements(d))
    throw TsgeError.of('TSGE-E7103', {
      node: ctx.nodeName,
      kernel: ctx.nodeName,
      reason: `shape [${dims.join(',')}] does not hold the description's ${kernelElements(d)} elements`,
    });
  return dims;
}

/** Checks that the tensors a task hands the kernel are the ones its description was made for. */
export function checkOperands(
  d: KernelDescription,
  inputs: readonly (ArrayLike<number> | undefined)[],
  output: ArrayLike<number>,
  node: string,
): void {
  const problem =
    inputs.length !== d.inputs.length
      ? `${inputs.length} inputs, the description has ${d.inputs.length}`
      : (inputs
          .map((x, i) =>
            x?.length !== d.inputs[i]?.size ? `input ${i} has ${x?.length ?? 0} elements, the description ${d.inputs[i]?.size}` : '',
          )
          .find((s) => s) ??
        (output.length !== kernelElements(d) ? `output has ${output.length} elements, the description ${kernelElements(d)}` : ''));
  if (problem) throw TsgeError.of('TSGE-E7103', { node, kernel: node, reason: problem });
}

type Unary = (x: number) => number;
type Binary = (a: number, b: number) => number;
const UNARY: Readonly<Record<number, Unary>> = {
  [KOp.neg]: (x) => -x,
  [KOp.abs]: Math.abs,
  // x < 0 ? 0 : x keeps NaN and −0, as onnxruntime's Relu does (Math.max(−0, 0) is 0)
  // biome-ignore lint/complexity/useMathMinMax: Math.max gives 0 for −0
  [KOp.relu]: (x) => (x < 0 ? 0 : x),
  [KOp.sigmoid]: (x) => (x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x))),
  [KOp.tanh]: Math.tanh,
  [KOp.exp]: Math.exp,
  [KOp.log]: Math.log,
  [KOp.sqrt]: Math.sqrt,
  [KOp.reciprocal]: (x) => 1 / x,
  [KOp.floor]: Math.floor,
  [KOp.ceil]: Math.ceil,
  [KOp.erf]: erf,
  [KOp.copy]: (x) => x,
};
const BINARY: Readonly<Record<number, Binary>> = {
  [KOp.add]: (a, b) => a + b,
  [KOp.sub]: (a, b) => a - b,
  [KOp.mul]: (a, b) => a * b,
  [KOp.div]: (a, b) => a / b,
  [KOp.max]: Math.max,
  [KOp.min]: Math.min,
  [KOp.pow]: Math.pow,
  [KOp.leaky]: (a, b) => (a >= 0 ? a : a * b),
  // a clamp keeps x when it is NaN, −0 against a bound of 0, or inside the bounds, as onnxruntime's
  // Clip does and the SIMD emitter's pmax/pmin do (Math.max/min would give 0 for −0, NaN for a NaN bound)
  // biome-ignore lint/complexity/useMathMinMax: Math.max differs on −0 and a NaN bound
  [KOp.clampLo]: (a, b) => (a < b ? b : a),
  // biome-ignore lint/complexity/useMathMinMax: Math.min differs on −0 and a NaN bound
  [KOp.clampHi]: (a, b) => (b < a ? b : a),
};

/** Rows of a description: the product of every dim but the last. */
export function descriptionRows(d: KernelDescription): number {
  return kernelElements(d) / (d.shape[d.shape.length - 1] as number);
}

/**
 * The plain-JS interpreter of a description over rows [rowStart, rowEnd) (a row is a run along
 * the last dim). Each instruction runs as a loop over a block of up to BLOCK elements held in
 * float32 registers, so intermediate values round to float32 exactly as the unfused ops' tensors do.
 * A row-reduction kernel makes its passes over each row (`rowPasses`), each reduction summed in
 * float64 and rounded once, its result then one value for the whole row.
 */
export function interpretDescription(
  d: KernelDescription,
  inputs: readonly Float32Array[],
  output: Float32Array,
  rowStart = 0,
  rowEnd = descriptionRows(d),
): void {
  const rank = d.shape.length;
  const last = d.shape[rank - 1] as number;
  const k = d.inputs.length;
  const first = k + d.constants.length;
  const registers: Float32Array[] = [];
  for (let r = 0; r < k; r++) registers.push(new Float32Array(BLOCK));
  for (const c of d.constants) registers.push(new Float32Array(BLOCK).fill(c));
  for (let i = 0; i < d.instructions.length; i++) registers.push(new Float32Array(BLOCK));
  const loads = registers.slice(0, k);
  const passes = rowPasses(d);
  const totals = new Float64Array(d.instructions.length);
  const index = new Array<number>(rank - 1).fill(0);
  let rest = rowStart;
  for (let dim = rank - 2; dim >= 0; dim--) {
    const size = d.shape[dim] as number;
    index[dim] = rest % size;
    rest = Math.floor(rest / size);
  }
  const base = d.inputs.map((input) => index.reduce((sum, v, dim) => sum + v * (input.strides[dim] as number), 0));
  const inner = d.inputs.map((input) => input.strides[rank - 1] as number);
  for (let row = rowStart; row < rowEnd; row++) {
    for (const pass of passes) {
      for (const i of pass.accumulate)
        totals[i] = (d.instructions[i] as KernelInstruction).op === KOp.rowSum ? 0 : Number.NEGATIVE_INFINITY;
      for (let start = 0; start < last; start += BLOCK) {
        const n = Math.min(BLOCK, last - start);
        for (let r = 0; r < k; r++) {
          const src = inputs[r] as Float32Array;
          const s = inner[r] as number;
          const at = (base[r] as number) + start * s;
          if (s === 1) registers[r] = src.subarray(at, at + n);
          else {
            const reg = loads[r] as Float32Array;
            for (let e = 0; e < n; e++) reg[e] = src[at + e * s] as number;
            registers[r] = reg;
          }
        }
        for (const i of pass.evaluate) {
          const ins = d.instructions[i] as KernelInstruction;
          const y = registers[first + i] as Float32Array;
          const a = registers[ins.a] as Float32Array;
          const unary = UNARY[ins.op];
          if (unary) for (let e = 0; e < n; e++) y[e] = unary(a[e] as number);
          else {
            const b = registers[ins.b] as Float32Array;
            const binary = BINARY[ins.op] as Binary;
            for (let e = 0; e < n; e++) y[e] = binary(a[e] as number, b[e] as number);
          }
        }
        for (const i of pass.accumulate) {
          const ins = d.instructions[i] as KernelInstruction;
          const a = registers[ins.a] as Float32Array;
          let t = totals[i] as number;
          if (ins.op === KOp.rowSum) for (let e = 0; e < n; e++) t += a[e] as number;
          else
            for (let e = 0; e < n; e++) {
              const v = a[e] as number;
              // a NaN, once taken, stays: no v compares greater (as the unfused ReduceMax gives NaN)
              if (v > t || Number.isNaN(v)) t = v;
            }
          totals[i] = t;
        }
        if (pass.store) output.set((registers[d.output] as Float32Array).subarray(0, n), row * last + start);
      }
      for (const i of pass.accumulate) (registers[first + i] as Float32Array).fill(totals[i] as number);
    }
    // step the outer index (last outer dim fastest) and every input's base with it
    for (let dim = rank - 2; dim >= 0; dim--) {
      index[dim] = (index[dim] as number) + 1;
      for (let r = 0; r < k; r++) base[r] = (base[r] as number) + (d.inputs[r]?.strides[dim] as number);
      if ((index[dim] as number) < (d.shape[dim] as number)) break;
      for (let r = 0; r < k; r++) base[r] = (base[r] as number) - (index[dim] as number) * (d.inputs[r]?.strides[dim] as number);
      index[dim] = 0;
    }
  }
}

/** An epilogue runs over blocks of its host's output: its description must be elementwise (TSGE-E7105 otherwise). */
export function checkEpilogueKind(d: KernelDescription, node: string): void {
  if (d.kind !== KernelKind.elementwise) throw TsgeError.of('TSGE-E7105', { node, kernel: node });
}

/** The tensors a FusedConv's epilogue reads: its output (input 0), then the node's inputs after B. */
export function epilogueOperands(ctx: KernelContextV1, y: Float32Array): Float32Array[] {
  const operands = [y];
  for (let i = 3; i < ctx.inputCount; i++) {
    const t = ctx.tensor(i);
    if (t?.type !== 'float32')
      throw TsgeError.of('TSGE-E7103', { node: ctx.nodeName, kernel: ctx.nodeName, reason: `epilogue input ${i} is not float32` });
    operands.push(t.data as Float32Array);
  }
  return operands;
}

import {
  type KernelContextV1,
  type KernelDescription,
  RUNTIME_DIM,
  isRuntimeSized,
  resolveRuntimeSized,
  runtimeLayoutGroups,
} from '@tsge/metadef';
import { FUSED_CONV } from '@tsge/ops/kernel-support';
import { checkEpilogueKind, checkOperands, descriptionOf, epilogueOperands, interpretDescription, outputDims } from './generated-kernel.js';

const MAX_CACHED = 1024;
const resolved = new Map<string, { readonly description: KernelDescription; readonly words: readonly number[] }>();

/**
 * The epilogue of a FusedConv or FusedMatMul/PackedMatMul whose output has `dims` this run: its
 * description and words, a run-time-sized one (a model compiled with dynamic dims) resolved from
 * the run's shapes — the output as [N, C, spatial] (Conv) or [1, rows, N] (MatMul), its other
 * inputs (the node's inputs after B) checked to have the output's dims. Cached per distinct shape.
 */
export function epilogueDescription(
  ctx: KernelContextV1,
  dims: readonly number[],
): { readonly description: KernelDescription; readonly words: readonly number[] } {
  const d = descriptionOf(ctx);
  const words = ctx.attrs.ints('description', []);
  if (!isRuntimeSized(d)) return { description: d, words };
  // a FusedConv's tiles see it as the Conv it wraps
  const groups = runtimeLayoutGroups(ctx.opType === FUSED_CONV || ctx.opType === 'Conv' ? 'conv' : 'matmul', dims.length);
  const inputs: (readonly number[] | undefined)[] = [dims];
  for (let i = 3; i < ctx.inputCount; i++) inputs.push(ctx.tensor(i)?.dims);
  const key = `${words.join(',')}|${ctx.opType}|${inputs.map((x) => x?.join(',')).join('|')}`;
  let known = resolved.get(key);
  if (!known) {
    const r = resolveRuntimeSized(d, { output: dims, groups, inputs }, ctx.nodeName);
    known = { description: r.description, words: Array.from(r.words) };
    if (resolved.size >= MAX_CACHED) resolved.clear();
    resolved.set(key, known);
  }
  return known;
}

/**
 * A tsge::FusedElementwise task this run: its description and words, and the output dims. A
 * run-time-sized description (a standalone group of a model compiled with dynamic dims) is
 * resolved from the run's input dims, one layout dim per output dim: the output's dynamic dims
 * (`RUNTIME_DIM` in attribute `shape`) are the inputs' there (right-aligned; those of 1
 * broadcast), and each input must broadcast to the output (else TSGE-E7103). Cached per distinct shape.
 */
export function elementwiseTask(ctx: KernelContextV1): {
  readonly description: KernelDescription;
  readonly words: readonly number[];
  readonly dims: readonly number[];
} {
  const d = descriptionOf(ctx);
  const words = ctx.attrs.ints('description', []);
  if (!isRuntimeSized(d)) return { description: d, words, dims: outputDims(ctx, d) };
  const shape = ctx.attrs.ints('shape');
  const inputs = Array.from({ length: ctx.inputCount }, (_, i) => ctx.tensor(i)?.dims);
  const dims = shape.map((dim, i) => {
    if (dim !== RUNTIME_DIM) return dim;
    let n = 1;
    for (const x of inputs) {
      const at = x ? (x[x.length - shape.length + i] ?? 1) : 1;
      if (at !== 1) n = at;
    }
    return n;
  });
  const key = `${words.join(',')}|${inputs.map((x) => x?.join(',')).join('|')}`;
  let known = resolved.get(key);
  if (!known) {
    const groups = runtimeLayoutGroups('elementwise', dims.length);
    const r = resolveRuntimeSized(d, { output: dims, groups, inputs }, ctx.nodeName);
    known = { description: r.description, words: Array.from(r.words) };
    if (resolved.size >= MAX_CACHED) resolved.clear();
    resolved.set(key, known);
  }
  return { ...known, dims };
}

/**
 * A FusedConv's generated epilogue (attribute `description`) over its output `y` of `dims` in
 * place, on the interpreter. Input 0 is the output itself: each block is read before it is written.
 */
export function applyEpilogue(ctx: KernelContextV1, y: Float32Array, dims: readonly number[]): void {
  if (!ctx.attrs.has('description') && !ctx.attrs.has('kernel')) return;
  const d = epilogueDescription(ctx, dims).description;
  checkEpilogueKind(d, ctx.nodeName);
  const inputs = epilogueOperands(ctx, y);
  checkOperands(d, inputs, y, ctx.nodeName);
  interpretDescription(d, inputs, y);
}

import { type KernelContextV1, type KernelDescription, isRuntimeSized, resolveRuntimeSized } from '@tsge/metadef';
import { FUSED_CONV } from '@tsge/ops/kernel-support';
import { checkEpilogueKind, checkOperands, descriptionOf, epilogueOperands, interpretDescription } from './generated-kernel.js';

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
  const rank = dims.length;
  // a FusedConv's tiles see it as the Conv it wraps
  const groups: [number, number][] =
    ctx.opType === FUSED_CONV || ctx.opType === 'Conv'
      ? [
          [0, 1],
          [1, 2],
          [2, rank],
        ]
      : [
          [0, 0],
          [0, rank - 1],
          [rank - 1, rank],
        ];
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

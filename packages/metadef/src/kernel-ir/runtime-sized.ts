/**
 * Run-time-sized kernel descriptions: a generated epilogue of a model compiled with dynamic dims
 * (a batch, a text line's width). The expression is fixed at compile time; the loop extents are
 * `RUNTIME_DIM` and the inputs shaped at run time (`RUNTIME_DIM` size, `CONTIGUOUS` strides) are
 * resolved from each run's shapes into an ordinary static description, which is validated like
 * any other before a kernel runs it.
 */
import { TsgeError } from '../errors/tsge-error.js';
import { broadcastStrides, runStride } from './broadcast-strides.js';
import { CONTIGUOUS, type KernelDescription, RUNTIME_DIM, decodeKernelDescription, encodeKernelDescription } from './kernel-description.js';

/** Whether a description has dims or inputs known only at run time. */
export function isRuntimeSized(d: KernelDescription): boolean {
  return d.shape.includes(RUNTIME_DIM) || d.inputs.some((x) => x.size === RUNTIME_DIM);
}

/**
 * The layout dims of a run-time-sized description over `out`, as output dims [from, to): a Conv
 * epilogue's [N, C, spatial], a MatMul epilogue's [1, rows, N], or each dim on its own for a
 * standalone elementwise group (every broadcast is then one stride per dim).
 */
export function runtimeLayoutGroups(kind: 'conv' | 'matmul' | 'elementwise', rank: number): [number, number][] {
  if (kind === 'elementwise') return Array.from({ length: rank }, (_, i) => [i, i + 1]);
  return kind === 'conv'
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
}

/** The shapes of one run that resolve a run-time-sized description. */
export interface RuntimeShapes {
  /** The run's output dims. */
  readonly output: readonly number[];
  /** Each layout dim as output dims [from, to) (their product): [N, C, spatial] of a Conv, [1, rows, N] of a MatMul. */
  readonly groups: readonly (readonly [number, number])[];
  /** Each description input's dims (input 0 of an epilogue is the output itself). */
  readonly inputs: readonly (readonly number[] | undefined)[];
}

/**
 * The static description of `d` for one run: run-time dims from the output's layout (the static
 * ones must match it), inputs of run-time size addressed from their dims this run — contiguous
 * when they are the output's, else broadcast (right-aligned, as ONNX does) where that is one
 * stride per layout dim. An input the output would broadcast to (the unfused ops' result would
 * be larger than the fused op's), or one not addressable so, is TSGE-E7103 naming `node`.
 * Returns the description and its words.
 */
export function resolveRuntimeSized(
  d: KernelDescription,
  shapes: RuntimeShapes,
  node: string,
): { readonly description: KernelDescription; readonly words: Int32Array } {
  const fail = (reason: string): never => {
    throw TsgeError.of('TSGE-E7103', { node, kernel: node, reason });
  };
  const { output, groups } = shapes;
  const product = (dims: readonly number[], from: number, to: number): number => dims.slice(from, to).reduce((a, b) => a * b, 1);
  const layout = groups.map(([from, to]) => product(output, from, to));
  if (layout.length !== d.shape.length) fail(`a layout of ${layout.length} dims for a description of ${d.shape.length}`);
  const shape = d.shape.map((dim, i) => {
    const actual = layout[i] as number;
    if (!Number.isSafeInteger(actual) || actual < 1) fail(`dim ${i} of the run is ${actual}`);
    if (dim !== RUNTIME_DIM && dim !== actual) fail(`dim ${i} is ${actual} at run time, the description was made for ${dim}`);
    return actual;
  });
  const inputs = d.inputs.map((x, k) => {
    if (x.size !== RUNTIME_DIM) return x;
    if (x.strides.some((s) => s !== CONTIGUOUS)) fail(`input ${k} of run-time size has static strides`);
    const dims = shapes.inputs[k] ?? [];
    const strides = layoutStrides(dims, output, groups);
    if (!strides) fail(`input ${k} [${dims.join(',')}] does not broadcast to the output [${output.join(',')}] along its layout`);
    return { size: product(dims, 0, dims.length), strides: strides as number[] };
  });
  const words = encodeKernelDescription({ ...d, shape, inputs });
  // the resolved words are checked as a static description: strides stay inside every input
  return { description: decodeKernelDescription(words, node), words };
}

/**
 * An input's stride per layout dim: from its right-aligned broadcast strides over the output, 0
 * where it is broadcast over a whole group, else the stride of one contiguous run through the
 * group; undefined when it is larger than the output along a dim or not one run.
 */
function layoutStrides(
  dims: readonly number[],
  output: readonly number[],
  groups: readonly (readonly [number, number])[],
): number[] | undefined {
  const row = broadcastStrides(dims, output);
  if (!row) return undefined;
  const strides = groups.map(([from, to]) => runStride(output, row, from, to));
  return strides.every((s) => s !== undefined) ? (strides as number[]) : undefined;
}

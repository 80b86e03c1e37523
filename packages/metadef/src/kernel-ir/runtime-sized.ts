/**
 * Run-time-sized kernel descriptions: a generated epilogue of a model compiled with dynamic dims
 * (a batch, a text line's width). The expression is fixed at compile time; the loop extents are
 * `RUNTIME_DIM` and the inputs that have the output's dims (`RUNTIME_DIM` size, `CONTIGUOUS`
 * strides) are resolved from each run's shapes into an ordinary static description, which is
 * validated like any other before a kernel runs it.
 */
import { TsgeError } from '../errors/tsge-error.js';
import { CONTIGUOUS, type KernelDescription, RUNTIME_DIM, decodeKernelDescription, encodeKernelDescription } from './kernel-description.js';

/** Whether a description has dims or inputs known only at run time. */
export function isRuntimeSized(d: KernelDescription): boolean {
  return d.shape.includes(RUNTIME_DIM) || d.inputs.some((x) => x.size === RUNTIME_DIM);
}

export interface RuntimeShapes {
  /** The run's output as the description's layout (as many dims as it has). */
  readonly layout: readonly number[];
  /** The run's output dims. */
  readonly output: readonly number[];
  /** Each description input's dims (input 0 of an epilogue is the output itself). */
  readonly inputs: readonly (readonly number[] | undefined)[];
}

/**
 * The static description of `d` for one run: run-time dims from `shapes.layout` (the static ones
 * must match it), inputs of run-time size given the output's size and contiguous strides, once
 * their dims are checked to be the output's (so nothing broadcasts that the compiler did not
 * see). Returns the description and its words; a mismatch is TSGE-E7103 naming `node`.
 */
export function resolveRuntimeSized(
  d: KernelDescription,
  shapes: RuntimeShapes,
  node: string,
): { readonly description: KernelDescription; readonly words: Int32Array } {
  const fail = (reason: string): never => {
    throw TsgeError.of('TSGE-E7103', { node, kernel: node, reason });
  };
  const { layout, output } = shapes;
  if (layout.length !== d.shape.length) fail(`a layout of ${layout.length} dims for a description of ${d.shape.length}`);
  const shape = d.shape.map((dim, i) => {
    const actual = layout[i] as number;
    if (!Number.isSafeInteger(actual) || actual < 1) fail(`dim ${i} of the run is ${actual}`);
    if (dim !== RUNTIME_DIM && dim !== actual) fail(`dim ${i} is ${actual} at run time, the description was made for ${dim}`);
    return actual;
  });
  const contiguous = new Array<number>(shape.length);
  let size = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    contiguous[i] = size;
    size *= shape[i] as number;
  }
  const inputs = d.inputs.map((x, k) => {
    if (x.size !== RUNTIME_DIM) return x;
    const dims = shapes.inputs[k];
    if (!dims || dims.length !== output.length || dims.some((v, i) => v !== output[i]))
      fail(`input ${k} is [${dims?.join(',') ?? ''}], not the output's [${output.join(',')}]`);
    if (x.strides.some((s) => s !== CONTIGUOUS)) fail(`input ${k} of run-time size has static strides`);
    return { size, strides: contiguous };
  });
  const words = encodeKernelDescription({ ...d, shape, inputs });
  // the resolved words are checked as a static description: strides stay inside every input
  return { description: decodeKernelDescription(words, node), words };
}

import { describe, expect, it } from 'vitest';
import { TsgeError } from '../errors/tsge-error.js';
import {
  CONTIGUOUS,
  type KernelDescription,
  KernelDtype,
  KernelKind,
  KOp,
  RUNTIME_DIM,
  decodeKernelDescription,
  encodeKernelDescription,
} from './kernel-description.js';
import { isRuntimeSized, resolveRuntimeSized } from './runtime-sized.js';

// a Conv epilogue y = x · sigmoid(x) + r + bias[c] over [N, 3, spatial], N and spatial known at run time
const epilogue: KernelDescription = {
  kind: KernelKind.elementwise,
  dtype: KernelDtype.float32,
  shape: [RUNTIME_DIM, 3, RUNTIME_DIM],
  inputs: [
    { size: RUNTIME_DIM, strides: [CONTIGUOUS, CONTIGUOUS, CONTIGUOUS] },
    { size: RUNTIME_DIM, strides: [CONTIGUOUS, CONTIGUOUS, CONTIGUOUS] },
    { size: 3, strides: [0, 1, 0] },
  ],
  constants: [],
  instructions: [
    { op: KOp.sigmoid, a: 0, b: 0 },
    { op: KOp.mul, a: 0, b: 3 },
    { op: KOp.add, a: 4, b: 1 },
    { op: KOp.add, a: 5, b: 2 },
  ],
  output: 6,
  vectorWidth: 4,
};
const conv: readonly (readonly [number, number])[] = [
  [0, 1],
  [1, 2],
  [2, 4],
];

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (e) {
    if (TsgeError.isInstance(e)) return e.code;
    throw e;
  }
}

describe('run-time-sized kernel descriptions', () => {
  const words = encodeKernelDescription(epilogue);

  it('are read only where asked for, and round-trip there', () => {
    expect(codeOf(() => decodeKernelDescription(words, 'k0'))).toBe('TSGE-E7101');
    const d = decodeKernelDescription(words, 'k0', { runtimeSized: true });
    expect(d).toEqual(epilogue);
    expect(isRuntimeSized(d)).toBe(true);
  });

  it('refuse a static input that steps along a run-time dim, and mixed strides of a run-time input', () => {
    const stepping = {
      ...epilogue,
      inputs: [epilogue.inputs[0], epilogue.inputs[1], { size: 3, strides: [0, 1, 1] }],
    } as KernelDescription;
    expect(codeOf(() => decodeKernelDescription(encodeKernelDescription(stepping), 'k0', { runtimeSized: true }))).toBe('TSGE-E7101');
    const mixed = { ...epilogue, inputs: [{ size: RUNTIME_DIM, strides: [CONTIGUOUS, 1, CONTIGUOUS] }, ...epilogue.inputs.slice(1)] };
    expect(codeOf(() => decodeKernelDescription(encodeKernelDescription(mixed), 'k0', { runtimeSized: true }))).toBe('TSGE-E7101');
  });

  it('resolve to a static description from the run: inputs of the output dims, and ones broadcast to them', () => {
    const d = decodeKernelDescription(words, 'k0', { runtimeSized: true });
    const output = [2, 3, 4, 5];
    const same = resolveRuntimeSized(d, { output, groups: conv, inputs: [output, output] }, 'n0');
    expect(same.description.shape).toEqual([2, 3, 20]);
    expect(same.description.inputs).toEqual([
      { size: 120, strides: [60, 20, 1] },
      { size: 120, strides: [60, 20, 1] },
      { size: 3, strides: [0, 1, 0] },
    ]);
    expect(isRuntimeSized(same.description)).toBe(false);
    expect(decodeKernelDescription(same.words, 'k0')).toEqual(same.description);
    const overBatch = resolveRuntimeSized(d, { output, groups: conv, inputs: [output, [1, 3, 4, 5]] }, 'n0');
    expect(overBatch.description.inputs[1]).toEqual({ size: 60, strides: [0, 20, 1] });
    const perChannel = resolveRuntimeSized(d, { output, groups: conv, inputs: [output, [3, 1, 1]] }, 'n0');
    expect(perChannel.description.inputs[1]).toEqual({ size: 3, strides: [0, 1, 0] });
  });

  it('refuse a run that does not fit: another static dim, an input larger than the output or not one run', () => {
    const d = decodeKernelDescription(words, 'k0', { runtimeSized: true });
    const output = [2, 3, 4, 5];
    const resolve = (out: number[], r: number[]) => () => resolveRuntimeSized(d, { output: out, groups: conv, inputs: [out, r] }, 'n0');
    expect(codeOf(resolve([2, 4, 4, 5], [2, 4, 4, 5]))).toBe('TSGE-E7103');
    expect(codeOf(resolve(output, [4, 3, 4, 5]))).toBe('TSGE-E7103');
    // broadcast along H but not W: the spatial elements are not one run of the input
    expect(codeOf(resolve(output, [1, 3, 1, 5]))).toBe('TSGE-E7103');
    expect(codeOf(resolve([2, 3, 0, 5], [2, 3, 0, 5]))).toBe('TSGE-E7103');
  });
});

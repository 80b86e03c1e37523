import { type HostTensor, type KernelV1, type RuntimeValue, AttrError, InferenceError, TsgeError, attr, createTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { controlflowKernels } from '../controlflow/index.js';
import { runKernelOnHost } from '../host/run-on-host.js';
import { mlKernels } from '../ml/index.js';
import { tensorKernels } from './index.js';

// Odd but well-typed inputs: every failure must be a diagnosable error, never a TypeError.
const f32 = (dims: number[]): HostTensor => createTensor('float32', dims, new Float32Array(dims.reduce((a, b) => a * b, 1)).fill(1));
const i64 = (dims: number[], value: bigint): HostTensor =>
  createTensor('int64', dims, new BigInt64Array(dims.reduce((a, b) => a * b, 1)).fill(value));
const str = (dims: number[]): HostTensor => createTensor('string', dims, new Array<string>(dims.reduce((a, b) => a * b, 1)).fill('a'));

const inputSets: (RuntimeValue | undefined)[][] = [
  [],
  [f32([])],
  [f32([0])],
  [f32([2, 3]), i64([1], 5n)],
  [i64([2, 3], 1n), i64([2, 4], 9n), i64([2, 4], 1n)],
  [str([2, 2]), i64([2], -7n), str([2])],
  [f32([2, 2]), i64([3, 1], 1n), f32([3, 2]), i64([1], 0n)],
  [f32([1, 4, 2, 2]), i64([4], 2n), f32([2]), i64([1], -9n)],
  [{ kind: 'sequence', elementType: 'float32', items: [] }, i64([], 3n)],
];
const attrSets = [
  new Map(),
  new Map([['axis', attr.int(7)]]),
  new Map([
    ['axis', attr.int(-1)],
    ['blocksize', attr.int(3)],
    ['num_scan_inputs', attr.int(2)],
  ]),
];

function acceptable(e: unknown): boolean {
  return TsgeError.isInstance(e) || e instanceof InferenceError || e instanceof AttrError;
}

describe('kernels on odd inputs', () => {
  const kernels: KernelV1[] = [...tensorKernels, ...controlflowKernels, ...mlKernels];
  for (const kernel of kernels) {
    it(`${kernel.opType} fails only with diagnosable errors`, () => {
      for (const inputs of inputSets) {
        for (const attrs of attrSets) {
          try {
            runKernelOnHost(kernel, inputs, { attrs, outputCount: 2, runSubgraph: () => [] });
          } catch (e) {
            if (!acceptable(e))
              expect.fail(`${kernel.opType} threw ${(e as Error).name}: ${(e as Error).message} on ${inputs.length} inputs`);
          }
        }
      }
    });
  }
});

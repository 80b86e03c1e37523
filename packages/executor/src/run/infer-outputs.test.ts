import type { HostTensor } from '@tsge/metadef';
import { TsgeError, attr, createAttrReader, createTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import type { KernelCall } from '../model/kernel-call.js';
import { checkInferredOutput, inferOutputs } from './infer-outputs.js';

const ref = { region: 'dynamic' as const, offset: 0, bytes: 0, dtype: 'float32' as const, shape: ['a', 'b'] };
const reshape: KernelCall = {
  node: 'reshape',
  opType: 'Reshape',
  domain: '',
  kernel: 'reference',
  attrs: new Map(),
  opsetVersion: 21,
  inputs: [ref, { ...ref, dtype: 'int64', shape: [2] }],
  outputs: [ref],
  inputDtype: 'float32',
};

describe('run-time inference', () => {
  it("gives a call's output dims from the op definition and the run's input values", () => {
    const x = createTensor('float32', [2, 6]);
    const shape: HostTensor = createTensor('int64', [2], BigInt64Array.from([3n, -1n]));
    const [out] = inferOutputs(reshape, createAttrReader(reshape.attrs), [x, shape]) ?? [];
    expect(out).toMatchObject({ dtype: 'float32', shape: [3, 4] });
    checkInferredOutput(reshape, 0, out, [3, 4], 'float32');
    const error = (() => {
      try {
        checkInferredOutput(reshape, 0, out, [4, 3], 'float32');
      } catch (e) {
        return e;
      }
    })();
    expect(TsgeError.isInstance(error) && error.code).toBe('TSGE-E6203');
    expect((error as Error).message).toMatch(/node reshape.*\[4,3\].*\[3,4\]/);
  });

  it('leaves the dims inference marks unknown (a symbol or -1) to the kernel, and checks the rest', () => {
    const inferred = { dtype: 'float32' as const, shape: [2, -1, 'n?1', 8] };
    checkInferredOutput(reshape, 1, inferred, [2, 7, 3, 8], 'float32');
    expect(() => checkInferredOutput(reshape, 1, inferred, [2, 7, 3, 9], 'float32')).toThrow(/TSGE-E6203/);
    expect(() => checkInferredOutput(reshape, 1, inferred, [2, 7, 3, 8], 'float16')).toThrow(/TSGE-E6203/);
  });

  it('rejects inputs the op does not accept with TSGE-E4001 naming the node', () => {
    const shape = createTensor('int64', [2], BigInt64Array.from([5n, -1n]));
    expect(() => inferOutputs(reshape, createAttrReader(reshape.attrs), [createTensor('float32', [2, 6]), shape])).toThrow(
      /TSGE-E4001.*reshape/s,
    );
  });

  it('infers If and Loop outputs from the bodies the kernel ran (a body not run counts as unknown)', () => {
    const ifCall: KernelCall = {
      ...reshape,
      node: 'if',
      opType: 'If',
      attrs: new Map([
        ['then_branch', attr.graph('then')],
        ['else_branch', attr.graph('else')],
      ]),
      inputs: [{ ...ref, dtype: 'bool', shape: [] }],
    };
    const cond = createTensor('bool', [], Uint8Array.from([1]));
    // without the bodies (before the kernel ran them) there is nothing to say
    expect(inferOutputs(ifCall, createAttrReader(ifCall.attrs), [cond])).toBeUndefined();
    const ran = (name: string) => (name === 'then_branch' ? [createTensor('float32', [3, 2])] : undefined);
    const [out] = inferOutputs(ifCall, createAttrReader(ifCall.attrs), [cond], ran) ?? [];
    expect(out).toMatchObject({ dtype: 'float32', shape: [3, 2] });
    expect(() => checkInferredOutput(ifCall, 0, out, [2, 3], 'float32')).toThrow(/TSGE-E6203.*node if/);

    const loop: KernelCall = {
      ...reshape,
      node: 'loop',
      opType: 'Loop',
      attrs: new Map([['body', attr.graph('body')]]),
      outputs: [ref, ref],
      inputs: [
        { ...ref, dtype: 'int64', shape: [] },
        { ...ref, dtype: 'bool', shape: [] },
        { ...ref, shape: [2] },
      ],
    };
    const inputs = [createTensor('int64', [], BigInt64Array.from([4n])), cond, createTensor('float32', [2])];
    // the body gave (cond, carried of [2], a scan slice of [5]) on its last iteration
    const body = () => [cond, createTensor('float32', [2]), createTensor('float32', [5])];
    const [carried, scan] = inferOutputs(loop, createAttrReader(loop.attrs), inputs, body) ?? [];
    expect(carried).toMatchObject({ dtype: 'float32', shape: [2] });
    // the iteration count is the kernel's to decide; the slice shape is the body's
    expect(scan).toMatchObject({ dtype: 'float32', shape: [-1, 5] });
    checkInferredOutput(loop, 1, scan, [4, 5], 'float32');
    expect(() => checkInferredOutput(loop, 1, scan, [4, 6], 'float32')).toThrow(/TSGE-E6203/);
  });
});

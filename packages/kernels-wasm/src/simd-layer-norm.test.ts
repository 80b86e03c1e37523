import { type AttrValue, type HostTensor, type KernelContextV1, type KernelV1, createAttrReader, createTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { nnKernels } from '@tsge/kernels-js/kernel-support';
import { simdLayerNormKernel } from './simd-layer-norm.js';
import { type Operand, maxRelativeError, operand, runKernel, wasmMemory } from './simd-test-support.fixture.js';
import { runTile } from './simd-test-support.fixture.js';

const reference = nnKernels.find((k) => k.opType === 'LayerNormalization' && k.name === 'reference') as KernelV1;
const kernel = simdLayerNormKernel(reference);
const int = (value: number): AttrValue => ({ kind: 'int', value });

/** The kernel with a thread pool of `threads` that runs its tiles here, in reverse order. */
const withThreads = (k: KernelV1, threads: number): KernelV1 => ({
  ...k,
  compute: (ctx: KernelContextV1) =>
    k.compute({
      ...ctx,
      parallel: {
        threads,
        run: (name, tiles) => {
          for (const t of [...tiles].reverse()) runTile(ctx.memory as NonNullable<typeof ctx.memory>, name, t);
        },
      },
    }),
});

function compare(inputs: (Operand | undefined)[], attrs: Record<string, AttrValue>, where: 'host' | 'plain' | 'shared' | 'threads'): void {
  const expected = runKernel(reference, { opType: 'LayerNormalization', inputs, attrs });
  const actual = runKernel(where === 'threads' ? withThreads(kernel, 4) : kernel, {
    opType: 'LayerNormalization',
    inputs,
    attrs,
    ...(where === 'host' ? {} : { memory: wasmMemory(where === 'shared') }),
  });
  expect(actual.dims).toEqual(expected.dims);
  // float32 arithmetic in device memory (float64 on the host): errors against max(|y|, 1), as y ~ scale
  const floor = where === 'host' ? 1e-6 : 1;
  expect(maxRelativeError(actual.values, expected.values, floor)).toBeLessThanOrEqual(where === 'host' ? 1e-6 : 2e-6);
}

describe('fast LayerNormalization', () => {
  const cases: readonly (readonly [readonly number[], number, readonly number[]])[] = [
    [[1, 40, 120], -1, [120]],
    [[3, 7], 1, [7]],
    [[2, 3, 5, 4], 2, [5, 4]],
    [[2, 3, 5, 4], 2, [1, 5, 4]],
    [[300, 33], -1, [33]],
    [[4, 1], -1, [1]],
    [[2, 6], 0, [2, 6]],
  ];
  for (const [dims, axis, scaleDims] of cases) {
    for (const where of ['host', 'plain', 'shared', 'threads'] as const) {
      it(`matches the reference on [${dims}] axis ${axis}, scale [${scaleDims}], ${where}`, () => {
        const x = operand(dims, dims.length * 7 + 1, 2);
        const scale = operand(scaleDims, 3);
        const bias = operand(scaleDims, 4);
        compare([x, scale, bias], { axis: int(axis) }, where);
        compare([x, scale], { axis: int(axis), epsilon: { kind: 'float', value: 1e-3 } }, where);
        compare([x, scale, undefined], { axis: int(axis) }, where);
      });
    }
  }

  it('keeps float32 statistics accurate for long rows far from zero', () => {
    for (const [rows, n, offset] of [
      [3, 4096, 50],
      [8, 768, -1000],
      [2, 3001, 0.001],
    ] as const) {
      const x = operand([rows, n], n, 0.25);
      const shifted = { dims: x.dims, values: x.values.map((v) => v + offset) };
      compare([shifted, operand([n], 5), operand([n], 6)], {}, 'plain');
      compare([shifted, operand([n], 5), operand([n], 6)], {}, 'threads');
    }
  });

  it('falls back to the reference for a broadcast scale', () => {
    compare([operand([2, 3, 4], 1), operand([1, 4], 2), operand([3, 1], 3)], { axis: int(1) }, 'plain');
  });

  it('writes Mean and InvStdDev like the reference', () => {
    const x = operand([3, 2, 5], 11);
    const scale = operand([5], 12);
    const outputs = (k: KernelV1): HostTensor[] => {
      const tensors: HostTensor[] = [
        { type: 'float32', dims: [...x.dims], data: Float32Array.from(x.values) },
        { type: 'float32', dims: [5], data: Float32Array.from(scale.values) },
      ];
      const out: HostTensor[] = [];
      const ctx: KernelContextV1 = {
        nodeName: 'n',
        opType: 'LayerNormalization',
        attrs: createAttrReader(new Map()),
        inputCount: 2,
        outputCount: 3,
        opsetVersion: 17,
        input: (i) => tensors[i],
        tensor: (i) => tensors[i],
        output: (i, dims, dtype) => {
          out[i] = createTensor(dtype, dims);
          return out[i] as HostTensor;
        },
        setOutput: () => {},
        runSubgraph: () => [],
      };
      k.compute(ctx);
      return out;
    };
    const expected = outputs(reference);
    const actual = outputs(kernel);
    for (let i = 0; i < 3; i++) {
      expect(actual[i]?.dims).toEqual(expected[i]?.dims);
      expect(maxRelativeError(actual[i]?.data as Float32Array, expected[i]?.data as Float32Array, 1e-6)).toBeLessThanOrEqual(1e-6);
    }
  });
});

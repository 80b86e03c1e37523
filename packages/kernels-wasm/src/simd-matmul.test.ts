import { type KernelContextV1, type LinearMemory, createAttrReader, createTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { mathKernels } from '@tsge/kernels-js/kernel-support';
import { hasWasmSimd } from './kernel-modules.js';
import { gemmRowTiles, simdMatMulKernel } from './simd-matmul.js';
import { maxRelativeError, operand, runKernel, wasmMemory } from './simd-test-support.fixture.js';

function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff - 0.5;
  };
}

/** Places tensors at increasing offsets of a wasm memory and runs a kernel on their views. */
function runInMemory(
  memory: LinearMemory,
  dims: { a: number[]; b: number[] },
  values: { a: Float32Array; b: Float32Array },
  outDims: number[],
) {
  let offset = 64;
  const place = (count: number): Float32Array => {
    const view = new Float32Array(memory.buffer, offset, count);
    offset += Math.ceil((count * 4) / 64) * 64;
    return view;
  };
  const a = place(values.a.length);
  a.set(values.a);
  const b = place(values.b.length);
  b.set(values.b);
  const y = place(outDims.reduce((p, d) => p * d, 1));
  y.fill(Number.NaN);
  const ctx: KernelContextV1 = {
    nodeName: 'mm',
    opType: 'MatMul',
    attrs: createAttrReader(new Map()),
    inputCount: 2,
    outputCount: 1,
    opsetVersion: 13,
    memory,
    input: (i) => (i === 0 ? { type: 'float32', dims: dims.a, data: a } : { type: 'float32', dims: dims.b, data: b }),
    tensor: (i) => (i === 0 ? { type: 'float32', dims: dims.a, data: a } : { type: 'float32', dims: dims.b, data: b }),
    output: (_i, d) => ({ type: 'float32', dims: [...d], data: y }),
    setOutput: () => {},
    runSubgraph: () => [],
  };
  return { ctx, y };
}

function naive(a: Float32Array, b: Float32Array, batch: number, m: number, k: number, n: number, bBatched: boolean): Float32Array {
  const y = new Float32Array(batch * m * n);
  for (let t = 0; t < batch; t++)
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let p = 0; p < k; p++) s += (a[t * m * k + i * k + p] as number) * (b[(bBatched ? t * k * n : 0) + p * n + j] as number);
        y[t * m * n + i * n + j] = s;
      }
  return y;
}

const reference = mathKernels.find((k) => k.opType === 'MatMul');

describe.skipIf(!hasWasmSimd())('wasm SIMD MatMul', () => {
  const kernel = simdMatMulKernel(reference!);
  for (const [batch, m, k, n, bBatched] of [
    [1, 1, 1, 1, false],
    [1, 4, 8, 8, false],
    [1, 7, 13, 19, false],
    [3, 5, 17, 12, false],
    [2, 9, 6, 11, true],
    [1, 64, 96, 130, false],
    [1, 24, 300, 661, false],
    [2, 3, 40, 37, true],
    // 64 rows or more: B packed into panels in the workspace (K blocks past 256, partial panels)
    [1, 70, 300, 45, false],
    [2, 64, 33, 130, true],
    // blocks of A copied to contiguous rows (64+ columns): rows past one 128-row block, K past 256
    [1, 150, 520, 97, false],
  ] as const) {
    for (const shared of [false, true]) {
      it(`${batch}×${m}×${k} · ${k}×${n}${bBatched ? ' (batched B)' : ''}, ${shared ? 'shared' : 'plain'} memory`, () => {
        const memory = wasmMemory(shared, 32);
        const rnd = random(m * 31 + n);
        const a = Float32Array.from({ length: batch * m * k }, rnd);
        const b = Float32Array.from({ length: (bBatched ? batch : 1) * k * n }, rnd);
        const dims = { a: batch > 1 ? [batch, m, k] : [m, k], b: bBatched ? [batch, k, n] : [k, n] };
        const outDims = batch > 1 ? [batch, m, n] : [m, n];
        const { ctx, y } = runInMemory(memory, dims, { a, b }, outDims);
        kernel.compute(ctx);
        const expected = naive(a, b, batch, m, k, n, bBatched);
        let worst = 0;
        for (let i = 0; i < expected.length; i++) worst = Math.max(worst, Math.abs((y[i] as number) - (expected[i] as number)));
        expect(worst).toBeLessThan(1e-4);
      });
    }
  }

  it('falls back to the reference kernel on host memory', () => {
    const a = createTensor('float32', [2, 3], Float32Array.from([1, 2, 3, 4, 5, 6]));
    const b = createTensor('float32', [3, 1], Float32Array.from([1, 1, 1]));
    let out: Float32Array | undefined;
    kernel.compute({
      nodeName: 'mm',
      opType: 'MatMul',
      attrs: createAttrReader(new Map()),
      inputCount: 2,
      outputCount: 1,
      opsetVersion: 13,
      input: (i) => (i === 0 ? a : b),
      tensor: (i) => (i === 0 ? a : b),
      output: (_i, d, t) => {
        const tensor = createTensor(t, d);
        out = tensor.data as Float32Array;
        return tensor;
      },
      setOutput: () => {},
      runSubgraph: () => [],
    });
    expect([...(out ?? [])]).toEqual([6, 15]);
  });
});

describe.skipIf(!hasWasmSimd())('wasm SIMD MatMul, packed path in tiles', () => {
  it('splits a large GEMM into row and column tiles (run out of order) with the reference result', () => {
    const a = operand([160, 272], 3);
    const b = operand([272, 200], 4);
    const expected = runKernel(reference!, { opType: 'MatMul', inputs: [a, b] });
    const actual = runKernel(simdMatMulKernel(reference!), { opType: 'MatMul', inputs: [a, b], memory: wasmMemory(true, 64), threads: 4 });
    expect(actual.dims).toEqual([160, 200]);
    expect(maxRelativeError(actual.values, expected.values, 1)).toBeLessThan(1e-4);
  });

  it('splits a GEMV (one row, a decode step) into column tiles with the reference result', () => {
    const a = operand([1, 1024], 5);
    const b = operand([1024, 4803], 6);
    const data = new Float32Array(1);
    const tiles = gemmRowTiles(
      { m: 1, n: 4803, k: 1024 },
      { data, offset: 0, ld: 1024 },
      { data, offset: 0, ld: 4803 },
      { data, offset: 0, ld: 4803 },
      4,
    );
    expect(tiles.length).toBeGreaterThan(1);
    expect(tiles.reduce((sum, t) => sum + (t[1] as number), 0)).toBe(4803);
    const expected = runKernel(reference!, { opType: 'MatMul', inputs: [a, b] });
    const actual = runKernel(simdMatMulKernel(reference!), { opType: 'MatMul', inputs: [a, b], memory: wasmMemory(true, 512), threads: 4 });
    const oneTile = runKernel(simdMatMulKernel(reference!), {
      opType: 'MatMul',
      inputs: [a, b],
      memory: wasmMemory(true, 512),
      threads: 1,
    });
    expect(actual.dims).toEqual([1, 4803]);
    // each element sums in the same order whatever the split; float32 sums of 1024 terms vs float64
    expect(Array.from(actual.values)).toEqual(Array.from(oneTile.values));
    expect(maxRelativeError(actual.values, expected.values, 1)).toBeLessThan(5e-4);
  });
});

// Gemm and FusedGemm with a constant B compile to tsge::PackedMatMul (B transposed when transB,
// scaled by alpha, stored in 8-column panels in the .om; beta·C over N becomes the bias): a fully
// connected layer's single row (GEMV on the panels) and more rows (GEMM on the panels), against
// onnxruntime-node on one and two threads. A C over every row, or a transposed B read by up to 4
// rows (its stored rows are what the dot-product kernel streams), stays on the Gemm kernel.
import { compileModel, parseModel } from '@tsge/ge';
import { describe, expect, it } from 'vitest';
import { expectLikeOrt, lcg, randomFloats } from '../transformer/ort-compare.fixture.js';
import { type Attr, type NodeSpec, type Operand, onnxModel } from '../transformer/single-node-model.fixture.js';

const random = lcg(43);
const f32 = (name: string, dims: readonly (number | string)[]): Operand => ({ name, type: 'float32', dims });
const constant = (name: string, dims: number[]): NodeSpec => ({
  opType: 'Constant',
  domain: '',
  inputs: [],
  outputs: [name],
  attrs: [{ name: 'value', tensor: { dims, data: randomFloats('float32', dims, random).data as Float32Array } }],
});

interface GemmCase {
  readonly rows: number;
  readonly k: number;
  readonly n: number;
  readonly transB: boolean;
  readonly alpha?: number;
  readonly beta?: number;
  /** C's dims; none: no C. */
  readonly c?: number[];
  readonly relu?: boolean;
}

/** y = Gemm(x[rows, k], W, C) (then Relu, which fusion folds into a FusedGemm). */
function model(g: GemmCase): Uint8Array {
  const attrs: Attr[] = [{ name: 'transB', int: g.transB ? 1 : 0 }];
  if (g.alpha !== undefined) attrs.push({ name: 'alpha', float: g.alpha });
  if (g.beta !== undefined) attrs.push({ name: 'beta', float: g.beta });
  const nodes: NodeSpec[] = [constant('w', g.transB ? [g.n, g.k] : [g.k, g.n])];
  if (g.c) nodes.push(constant('c', g.c));
  nodes.push({ opType: 'Gemm', domain: '', inputs: g.c ? ['x', 'w', 'c'] : ['x', 'w'], outputs: [g.relu ? 'h' : 'y'], attrs });
  if (g.relu) nodes.push({ opType: 'Relu', domain: '', inputs: ['h'], outputs: ['y'] });
  return onnxModel(nodes, [f32('x', [g.rows, g.k])], [f32('y', [g.rows, g.n])], 13);
}

describe('Gemm with a constant B on packed panels', () => {
  const cases: [string, GemmCase, boolean][] = [
    ['fully connected on one row, B as is, bias [N]', { rows: 1, k: 2048, n: 1000, transB: false, c: [1000] }, true],
    // a transposed B read by a few rows stays as stored: the dot-product kernel streams its rows
    ['fully connected on one row, transB: not packed', { rows: 1, k: 2048, n: 1000, transB: true, c: [1000] }, false],
    ['transB, bias [1, N], alpha and beta', { rows: 6, k: 37, n: 61, transB: true, c: [1, 61], alpha: 0.5, beta: 2 }, true],
    ['B as is, no C', { rows: 70, k: 130, n: 77, transB: false }, true],
    ['B as is, bias, Relu (FusedGemm)', { rows: 80, k: 512, n: 200, transB: false, c: [200], relu: true }, true],
    ['transB, beta 0', { rows: 5, k: 64, n: 40, transB: true, c: [5, 40], beta: 0 }, true],
    ['C over every row: not packed', { rows: 9, k: 32, n: 24, transB: true, c: [9, 24] }, false],
  ];
  for (const [label, g, packs] of cases)
    it(label, async () => {
      const bytes = model(g);
      const compiled = await compileModel(await parseModel(bytes, { fileName: 'gemm.onnx' }));
      expect(compiled.summary.counters['gemm-weights-packed'] ?? 0).toBe(packs ? 1 : 0);
      for (const threads of [1, 2])
        await expectLikeOrt({
          label: `gemm ${label} t${threads}`,
          bytes,
          feeds: { x: randomFloats('float32', [g.rows, g.k], random) },
          outputs: ['y'],
          // absolute: sums over K = 2048 reach ~10, where float32 orders differ by ~1e-4
          tolerance: g.k > 1024 ? 5e-4 : 1e-4,
          threads,
        });
    });
});

describe('packed Gemm weights under a precision mode', () => {
  it('stores the panels as float16 (half the bytes) and still matches onnxruntime-node', async () => {
    const g: GemmCase = { rows: 8, k: 256, n: 100, transB: true, c: [100], alpha: 0.75 };
    const bytes = model(g);
    const graph = await parseModel(bytes, { fileName: 'gemm.onnx' });
    const fp32 = await compileModel(graph);
    const fp16 = await compileModel(graph, { precisionMode: 'force_fp16' });
    expect(fp16.summary.counters['gemm-weights-packed']).toBe(1);
    // panels of 13 × 256 × 8 floats (N padded to 104) and the bias, stored as float16
    expect(fp16.summary.weightsBytes).toBeLessThanOrEqual(fp32.summary.weightsBytes * 0.55);
    await expectLikeOrt({
      label: 'gemm fp16',
      bytes,
      feeds: { x: randomFloats('float32', [g.rows, g.k], random) },
      outputs: ['y'],
      tolerance: 2e-2,
      compile: { precisionMode: 'force_fp16' },
    });
  });
});

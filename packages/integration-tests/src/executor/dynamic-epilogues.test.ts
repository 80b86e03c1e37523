// Generated epilogues of a model compiled with dynamic dims (batch, width, sequence): the
// descriptions are run-time sized, resolved from each run's shapes. The Conv and constant-B MatMul
// chains become epilogues (KERNELS is not empty), a chain without either — a LayerNorm written
// out included — a FusedElementwise, and runs of several shapes match
// onnxruntime-node on the worker pool and on the calling thread. A residual that would make the
// unfused ops' result larger than the fused op's is a coded error, not a wrong result.
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import { readOm } from '@tsge/om';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lcg, randomFloats } from '../transformer/ort-compare.fixture.js';
import { type Attr, type NodeSpec, onnxModel } from '../transformer/single-node-model.fixture.js';

const random = lcg(91);
const op = (opType: string, inputs: string[], outputs: string[], attrs: Attr[] = []): NodeSpec => ({
  opType,
  domain: '',
  inputs,
  outputs,
  attrs,
});
const constant = (name: string, dims: number[], scale = 1): NodeSpec =>
  op(
    'Constant',
    [],
    [name],
    [{ name: 'value', tensor: { dims, data: (randomFloats('float32', dims, random).data as Float32Array).map((v) => v * scale) } }],
  );

const bytes = onnxModel(
  [
    // Conv + swish + per-channel Add: FusedConv with an epilogue over [N, C, H·W]
    constant('w1', [16, 8, 3, 3], 0.3),
    constant('b1', [16]),
    op('Conv', ['x', 'w1', 'b1'], ['c1'], [{ name: 'pads', ints: [1, 1, 1, 1] }]),
    op('Sigmoid', ['c1'], ['g1']),
    op('Mul', ['c1', 'g1'], ['s1']),
    constant('k1', [16, 1, 1]),
    op('Add', ['s1', 'k1'], ['a1']),
    // a pointwise Conv whose residual (a1, read twice) is an epilogue input of run-time size, then Relu
    constant('w2', [16, 16, 1, 1], 0.3),
    op('Conv', ['a1', 'w2'], ['c2']),
    op('Add', ['c2', 'a1'], ['r2']),
    op('Relu', ['r2'], ['y']),
    // MatMul with a constant B, bias, Sigmoid, times a run-time-shaped input: a PackedMatMul epilogue
    constant('wm', [24, 32], 0.2),
    constant('bm', [32]),
    op('MatMul', ['t', 'wm'], ['m']),
    op('Add', ['m', 'bm'], ['mb']),
    op('Sigmoid', ['mb'], ['ms']),
    op('Mul', ['ms', 'r'], ['z']),
    // a standalone chain on x (no Conv or MatMul before it): a FusedElementwise, one stride per dim
    constant('kx', [8, 1, 1]),
    op('Mul', ['x', 'kx'], ['e1']),
    op('Sigmoid', ['e1'], ['e2']),
    op('Sub', ['e2', 'x'], ['u']),
    // LayerNorm written out over v's static rows of 32 (its other dims dynamic): a row-reduction kernel
    op('Constant', [], ['last'], [{ name: 'value_ints', ints: [-1] }]),
    op('ReduceMean', ['v', 'last'], ['mu']),
    op('Sub', ['v', 'mu'], ['dr']),
    op('Mul', ['dr', 'dr'], ['d2']),
    op('ReduceMean', ['d2', 'last'], ['var']),
    constant('eps', [1], 1e-5),
    op('Add', ['var', 'eps'], ['ve']),
    op('Sqrt', ['ve'], ['sd']),
    op('Div', ['dr', 'sd'], ['nr']),
    constant('gamma', [32]),
    op('Mul', ['nr', 'gamma'], ['ng']),
    constant('beta', [32]),
    op('Add', ['ng', 'beta'], ['l']),
  ],
  [
    { name: 'x', type: 'float32', dims: ['batch', 8, 6, 'width'] },
    { name: 't', type: 'float32', dims: ['rows', 'seq', 24] },
    { name: 'r', type: 'float32', dims: ['rows', 'seq', 32] },
    { name: 'v', type: 'float32', dims: ['vrows', 'vseq', 32] },
  ],
  [
    { name: 'y', type: 'float32', dims: ['batch', 16, 6, 'width'] },
    { name: 'z', type: 'float32', dims: ['rows', 'seq', 32] },
    { name: 'u', type: 'float32', dims: ['batch', 8, 6, 'width'] },
    { name: 'l', type: 'float32', dims: ['vrows', 'vseq', 32] },
  ],
);

function feedsOf(batch: number, width: number, rows: number, seq: number, rRows = rows): Record<string, HostTensor> {
  return {
    x: randomFloats('float32', [batch, 8, 6, width], random),
    t: randomFloats('float32', [rows, seq, 24], random),
    r: randomFloats('float32', [rRows, seq, 32], random),
    v: randomFloats('float32', [rows + 1, seq, 32], random),
  };
}

describe('generated epilogues over dynamic dims', () => {
  let om: Uint8Array;
  let session: ort.InferenceSession;
  beforeAll(async () => {
    om = (await compileModel(await parseModel(bytes, { fileName: 'dynamic-epilogues.onnx' }), { optLevel: 3 })).om;
    session = await ort.InferenceSession.create(bytes);
  });
  afterAll(async () => {
    await session?.release();
  });

  it('fuse the chains into run-time-sized descriptions in KERNELS', () => {
    const model = readOm(om).model;
    const descriptions = model?.kernelDescriptions ?? [];
    expect(descriptions.length).toBeGreaterThan(0);
    expect(descriptions.some((d) => d.shape.includes(0))).toBe(true);
    const types = (model?.graph.nodes ?? []).map((n) => n.type);
    for (const gone of ['Sigmoid', 'Mul', 'Add', 'Relu']) expect(types, gone).not.toContain(gone);
    const hosts = (model?.graph.nodes ?? []).filter((n) => n.opDesc.attrs.has('kernel')).map((n) => n.type);
    expect(hosts.filter((t) => t === 'FusedConv')).toHaveLength(2);
    expect(hosts).toContain('PackedMatMul');
    // the standalone chain: its output's dynamic dims are RUNTIME_DIM (0), taken from x at each run
    // and the LayerNorm's: [rows, seq, 32]
    const shapes = (model?.graph.nodes ?? [])
      .filter((n) => n.type === 'FusedElementwise')
      .map((n) => n.opDesc.attrs.get('shape'))
      .map((a) => (a?.kind === 'ints' ? a.value : undefined));
    expect(shapes).toHaveLength(2);
    expect(shapes).toContainEqual([0, 8, 6, 0]);
    expect(shapes).toContainEqual([0, 0, 32]);
    expect(types).not.toContain('ReduceMean');
  });

  for (const mode of ['workers', 'host'] as const) {
    it(`match onnxruntime-node on several shapes (${mode})`, { timeout: 300_000 }, async () => {
      const model = await loadModel(om, { threads: 2, ...(mode === 'host' ? { mode: 'host' as const } : {}) });
      try {
        for (const [batch, width, rows, seq, rRows] of [
          [1, 10, 1, 5, 1],
          [2, 23, 3, 17, 3],
          [1, 10, 1, 5, 1],
          // r broadcast over the rows: the epilogue reads it with stride 0 there
          [1, 7, 2, 1, 1],
        ] as const) {
          const feeds = feedsOf(batch, width, rows, seq, rRows);
          const want = await session.run(
            Object.fromEntries(
              Object.entries(feeds).map(([k, t]) => [k, new ort.Tensor('float32', t.data as Float32Array, t.dims as number[])]),
            ),
          );
          const got = await model.run(feeds);
          for (const name of ['y', 'z', 'u', 'l']) {
            const a = got[name] as HostTensor;
            const b = want[name] as ort.Tensor;
            expect(a.dims, `${name} ${batch}×${width}, ${rows}×${seq}`).toEqual([...b.dims]);
            const x = a.data as Float32Array;
            const e = b.data as Float32Array;
            let worst = 0;
            for (let i = 0; i < e.length; i++)
              worst = Math.max(worst, Math.abs((x[i] as number) - (e[i] as number)) / (1 + Math.abs(e[i] as number)));
            expect(worst, `${name} ${batch}×${width}, ${rows}×${seq}`).toBeLessThan(1e-4);
          }
        }
      } finally {
        await model.release();
      }
    });
  }

  it('refuse a residual that would broadcast the output beyond the fused MatMul (TSGE-E7103)', { timeout: 300_000 }, async () => {
    const model = await loadModel(om, { threads: 1, mode: 'host' });
    try {
      // t has 1 row, r 3: onnxruntime's z is [3, 4, 32], the PackedMatMul's output [1, 4, 32]
      const error = await model.run(feedsOf(1, 5, 1, 4, 3)).then(
        () => undefined,
        (e: unknown) => e as { code?: string; message: string },
      );
      // the kernel failure names the node and carries the description's own code and reason
      expect(error?.code).toBe('TSGE-E6007');
      expect(error?.message).toMatch(/TSGE-E7103.*does not broadcast to the output \[1,4,32\]/);
    } finally {
      await model.release();
    }
  });
});

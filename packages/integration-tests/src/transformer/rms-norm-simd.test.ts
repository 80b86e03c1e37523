// RMSNormalization (opset 23) and SimplifiedLayerNormalization asked only for Y run on the SIMD RMS
// kernel: rows split across two threads, rows whose width is not a multiple of 4, normalised over one
// and over two axes, against onnxruntime-node.
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import type { TraceEvent } from '@tsge/ge';
import { describe, expect, it } from 'vitest';
import { expectLikeOrt, lcg, randomFloats } from './ort-compare.fixture.js';
import { type Operand, onnxModel, singleNodeModel } from './single-node-model.fixture.js';

const f32 = (name: string, dims: number[]): Operand => ({ name, type: 'float32', dims });

describe('RMS normalization on the SIMD kernel vs onnxruntime-node', () => {
  for (const opType of ['RMSNormalization', 'SimplifiedLayerNormalization'])
    for (const [dims, axis] of [
      [[4, 33, 896], -1],
      [[3, 7, 13], -1],
      [[2, 5, 6], 1],
    ] as [number[], number][])
      it(`${opType} [${dims}] axis ${axis}`, async () => {
        const random = lcg(dims.length * 7 + (dims[2] as number));
        const scaleDims = dims.slice(axis < 0 ? dims.length + axis : axis);
        const bytes = onnxModel(
          [
            {
              opType,
              domain: '',
              inputs: ['X', 'scale'],
              outputs: ['Y'],
              attrs: [
                { name: 'axis', int: axis },
                { name: 'epsilon', float: 1e-6 },
              ],
            },
          ],
          [f32('X', dims), f32('scale', scaleDims)],
          [f32('Y', dims)],
          23,
        );
        const feeds = { X: randomFloats('float32', dims, random), scale: randomFloats('float32', scaleDims, random) };
        for (const threads of [1, 2])
          await expectLikeOrt({ label: `${opType} t${threads}`, bytes, feeds, outputs: ['Y'], tolerance: 2e-5, threads });
        const model = await loadModel((await compileModel(await parseModel(bytes, { fileName: 'rms.onnx' }))).om, {
          threads: 1,
          profile: true,
        });
        await model.run(feeds);
        const kernels = model
          .profile()
          .traceEvents.filter((e): e is TraceEvent => e.ph === 'X' && e.cat === opType)
          .map((e) => ('kernel' in e.args ? e.args.kernel : ''));
        await model.release();
        expect(kernels).toEqual(['wasm-simd']);
      });
});

describe('SkipSimplifiedLayerNormalization on the SIMD RMS kernel vs onnxruntime-node', () => {
  for (const [skipDims, withBias, withSum] of [
    [[3, 5, 36], true, true],
    [[5, 36], false, false],
    [[3, 5, 36], false, true],
  ] as [number[], boolean, boolean][])
    it(`skip [${skipDims}]${withBias ? ', bias' : ''}${withSum ? ', the sum output' : ''}`, async () => {
      const dims = [3, 5, 36];
      const random = lcg(skipDims.length * 3 + (withBias ? 1 : 0) + (withSum ? 2 : 0));
      const ms = (name: string, d: number[]): Operand => f32(name, d);
      const stats = [3, 5, 1];
      const bytes = singleNodeModel(
        'SkipSimplifiedLayerNormalization',
        'com.microsoft',
        [ms('input', dims), ms('skip', skipDims), ms('gamma', [36]), ...(withBias ? [ms('bias', [36])] : [])],
        withSum ? [ms('output', dims), ms('mean', stats), ms('inv_std_var', stats), ms('sum', dims)] : [ms('output', dims)],
        [{ name: 'epsilon', float: 1e-5 }],
      );
      const feeds = {
        input: randomFloats('float32', dims, random),
        skip: randomFloats('float32', skipDims, random),
        gamma: randomFloats('float32', [36], random),
        ...(withBias ? { bias: randomFloats('float32', [36], random) } : {}),
      };
      const outputs = withSum ? ['output', 'sum'] : ['output'];
      for (const threads of [1, 2]) await expectLikeOrt({ label: `skip rms t${threads}`, bytes, feeds, outputs, tolerance: 2e-5, threads });
      const model = await loadModel((await compileModel(await parseModel(bytes, { fileName: 'skip-rms.onnx' }))).om, {
        threads: 1,
        profile: true,
      });
      await model.run(feeds);
      const kernels = model
        .profile()
        .traceEvents.filter((e): e is TraceEvent => e.ph === 'X' && e.cat === 'SkipSimplifiedLayerNormalization')
        .map((e) => ('kernel' in e.args ? e.args.kernel : ''));
      await model.release();
      expect(kernels).toEqual(['wasm-simd']);
    });
});

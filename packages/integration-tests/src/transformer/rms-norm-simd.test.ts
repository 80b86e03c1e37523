// RMSNormalization (opset 23) and SimplifiedLayerNormalization asked only for Y run on the SIMD RMS
// kernel: rows split across two threads, rows whose width is not a multiple of 4, normalised over one
// and over two axes, against onnxruntime-node.
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import type { TraceEvent } from '@tsge/ge';
import { describe, expect, it } from 'vitest';
import { expectLikeOrt, lcg, randomFloats } from './ort-compare.fixture.js';
import { type Operand, onnxModel } from './single-node-model.fixture.js';

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

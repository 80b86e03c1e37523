// A dynamic-shape ONNX model (batch dim symbolic) on two workers: its tensors shaped at run time
// live in the driver worker's run-time arena in device memory, so the SIMD kernels take them and
// the other worker runs some of their tiles; outputs match onnxruntime-node.
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { lcg, randomFloats } from '../transformer/ort-compare.fixture.js';
import { onnxModel } from '../transformer/single-node-model.fixture.js';

const K = 384;
const H = 512;
const N = 256;
/** y = Relu(x · w1) · w2 with x of shape [batch, K], batch known only at run time. */
const bytes = onnxModel(
  [
    { opType: 'MatMul', domain: '', inputs: ['x', 'w1'], outputs: ['h'] },
    { opType: 'Relu', domain: '', inputs: ['h'], outputs: ['r'] },
    { opType: 'MatMul', domain: '', inputs: ['r', 'w2'], outputs: ['y'] },
  ],
  [
    { name: 'x', type: 'float32', dims: ['batch', K] },
    { name: 'w1', type: 'float32', dims: [K, H] },
    { name: 'w2', type: 'float32', dims: [H, N] },
  ],
  [{ name: 'y', type: 'float32', dims: ['batch', N] }],
);

describe('a dynamic-shape model on the worker pool', () => {
  it('runs SIMD kernels on run-time-shaped tensors in device memory, with tiles on both workers, like onnxruntime', {
    timeout: 300_000,
  }, async () => {
    const random = lcg(10);
    const w1 = randomFloats('float32', [K, H], random);
    const w2 = randomFloats('float32', [H, N], random);
    const session = await ort.InferenceSession.create(bytes);
    const om = (await compileModel(await parseModel(bytes, { fileName: 'dynamic-mlp.onnx' }))).om;
    const model = await loadModel(om, { threads: 2, profile: true, startWorkers: 'eager' });
    expect(model.mode).toBe('sink');
    expect(model.threads).toBe(2);
    try {
      for (const batch of [96, 37, 128]) {
        const x = randomFloats('float32', [batch, K], random);
        const feeds = { x, w1, w2 };
        const want = (
          await session.run(
            Object.fromEntries(Object.entries(feeds).map(([k, t]) => [k, new ort.Tensor('float32', t.data as Float32Array, t.dims)])),
          )
        ).y as ort.Tensor;
        const got = (await model.run(feeds)).y as HostTensor;
        expect(got.dims).toEqual([batch, N]);
        const a = got.data as Float32Array;
        const b = want.data as Float32Array;
        let worst = 0;
        for (let i = 0; i < b.length; i++) worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
        expect(worst, `batch ${batch}`).toBeLessThan(1e-3);
      }
      const events = model.profile().traceEvents.filter((e) => e.ph === 'X');
      const matmuls = events.filter((e) => e.cat === 'MatMul');
      expect(matmuls).toHaveLength(6);
      // the kernels ran on a worker, never on the calling thread (tid 0)
      for (const e of matmuls) expect(e.tid).toBeGreaterThan(0);
      // tiles of the SIMD GEMM that the other worker ran, on its own thread id
      const tiles = events.filter((e) => e.cat === 'tile');
      expect(tiles.length).toBeGreaterThan(0);
      expect(
        tiles.every((t) => /gemm/i.test(String(t.name))),
        tiles.map((t) => t.name).join(),
      ).toBe(true);
      // the GEMMs ran in the SIMD kernel (the reference kernel splits no tiles)
      expect(matmuls.map((e) => e.args.kernel)).toContain('wasm-simd');
      const threads = new Set([...matmuls, ...tiles].map((e) => e.tid));
      expect(threads.size).toBeGreaterThan(1);
    } finally {
      await model.release();
      await session.release();
    }
  });
});

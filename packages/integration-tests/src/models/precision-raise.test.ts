// force_fp32 on a model that computes in float16: the ops run in float32 on the SIMD kernels with
// their weights kept as float16 in WEIGHTS, and the float16 output matches onnxruntime-node's.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import { createTensor, float16ToNumber, numberToFloat16 } from '@tsge/metadef';
import { readOm } from '@tsge/om';
import { createRandom, runOnnxRuntime } from '@tsge/run';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';

const FLOAT16 = 10;
type W = protobuf.Writer;
const sub = (w: W, field: number, write: (w: W) => void): void => {
  w.uint32((field << 3) | 2).fork();
  write(w);
  w.ldelim();
};
const str = (w: W, field: number, s: string): void => void w.uint32((field << 3) | 2).string(s);
const int = (w: W, field: number, v: number): void => void w.uint32(field << 3).int64(v);

function valueInfo(w: W, field: number, name: string, dims: number[]): void {
  sub(w, field, (v) => {
    str(v, 1, name);
    sub(v, 2, (t) =>
      sub(t, 1, (tt) => {
        int(tt, 1, FLOAT16);
        sub(tt, 2, (s) => {
          for (const d of dims) sub(s, 1, (dim) => int(dim, 1, d));
        });
      }),
    );
  });
}

function tensor(w: W, name: string, dims: number[], bits: Uint16Array): void {
  sub(w, 5, (t) => {
    for (const d of dims) int(t, 1, d);
    int(t, 2, FLOAT16);
    str(t, 8, name);
    t.uint32((9 << 3) | 2).bytes(new Uint8Array(bits.buffer));
  });
}

const halfs = (n: number, random: () => number, scale: number): Uint16Array =>
  Uint16Array.from({ length: n }, () => numberToFloat16((random() - 0.5) * scale));

/** Y = Relu(Conv(X, W, B, pads 1)) in float16: X [1,2,6,6], W [3,2,3,3]. */
function fp16ConvModel(): Uint8Array {
  const random = createRandom(5);
  const w = protobuf.Writer.create();
  int(w, 1, 8);
  sub(w, 8, (o) => {
    str(o, 1, '');
    int(o, 2, 17);
  });
  sub(w, 7, (g) => {
    sub(g, 1, (n) => {
      for (const i of ['X', 'W', 'B']) str(n, 1, i);
      str(n, 2, 'c');
      str(n, 3, 'conv');
      str(n, 4, 'Conv');
      sub(n, 5, (a) => {
        str(a, 1, 'pads');
        for (const p of [1, 1, 1, 1]) int(a, 8, p);
        int(a, 20, 7);
      });
    });
    sub(g, 1, (n) => {
      str(n, 1, 'c');
      str(n, 2, 'Y');
      str(n, 3, 'relu');
      str(n, 4, 'Relu');
    });
    str(g, 2, 'fp16conv');
    tensor(g, 'W', [3, 2, 3, 3], halfs(54, random, 1));
    tensor(g, 'B', [3], halfs(3, random, 0.5));
    valueInfo(g, 11, 'X', [1, 2, 6, 6]);
    valueInfo(g, 12, 'Y', [1, 3, 6, 6]);
  });
  return w.finish();
}

describe('force_fp32 raises float16 compute', () => {
  it('runs a float16 Conv on the SIMD kernels with float16 weights and matches onnxruntime-node', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'tsge-fp16-')), 'conv16.onnx');
    writeFileSync(file, fp16ConvModel());
    const graph = await parseModel(file);
    const keep = await compileModel(graph, { precisionMode: 'must_keep_origin_dtype' });
    const raised = await compileModel(graph, { precisionMode: 'force_fp32' });
    const kernelOf = (om: Uint8Array, op: string) =>
      readOm(om)
        .model?.taskInfo.plans[0]?.streams.flatMap((s) => s.tasks)
        .find((t) => t.kind === 'kernel' && t.opType.endsWith(op));
    // kept: a float16 Conv on the reference kernel; raised: float32 on the SIMD kernel
    expect(kernelOf(keep.om, 'Conv')).toMatchObject({ kernel: 'reference' });
    expect(kernelOf(raised.om, 'Conv')).toMatchObject({ kernel: 'wasm-simd' });
    expect(raised.summary.counters['fp32-raised-nodes']).toBeGreaterThan(0);
    // the weights stay float16 in the file
    expect(raised.summary.weightsBytes).toBeLessThanOrEqual(keep.summary.weightsBytes);
    expect(readOm(raised.om).model?.taskInfo.weightStorage?.spans.some(([, , , kind]) => kind === 1)).toBe(true);

    const random = createRandom(9);
    const x = createTensor('float16', [1, 2, 6, 6], halfs(72, random, 4));
    const expected = Object.values(await runOnnxRuntime(file, { X: x }, 1))[0] as HostTensor;
    const model = await loadModel(raised.om, { threads: 1 });
    try {
      const got = Object.values(await model.run({ X: x }))[0] as HostTensor;
      expect(got.type).toBe('float16');
      expect(got.dims).toEqual([1, 3, 6, 6]);
      const a = Array.from(got.data as Uint16Array, float16ToNumber);
      const b = Array.from(expected.data as Uint16Array, float16ToNumber);
      // both round a float32 accumulation to float16 once: equal to a float16 ulp
      for (let i = 0; i < a.length; i++)
        expect(Math.abs((a[i] as number) - (b[i] as number))).toBeLessThanOrEqual(2e-3 * Math.max(1, Math.abs(b[i] as number)));
      expect(new Set(a).size).toBeGreaterThan(20);
    } finally {
      await model.release();
    }
  }, 120_000);
});

// GE's precision modes on real models: lowered weights are stored as float16 / bfloat16 in WEIGHTS,
// widened at load, and run on the SIMD kernels; outputs are held against onnxruntime-node on the
// float32 model (to the narrow type's precision) and must differ from the float32 compile (the
// weights really were rounded).
import path from 'node:path';
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import { TsgeError } from '@tsge/metadef';
import { readOm } from '@tsge/om';
import { compareTensors, createRandom, randomTensor, runOnnxRuntime } from '@tsge/run';
import { describe, expect, it } from 'vitest';

const mnist = path.resolve(process.cwd(), '../shared/testdata/models/onnx/mnist.onnx');
const shapes = { Input3: [1, 1, 28, 28] };

async function run(om: Uint8Array, feeds: Record<string, HostTensor>): Promise<HostTensor> {
  const model = await loadModel(om, { threads: 1 });
  try {
    return Object.values(await model.run(feeds))[0] as HostTensor;
  } finally {
    await model.release();
  }
}

const KERNEL_OPS = new Set(['Conv', 'FusedConv', 'MatMul', 'FusedMatMul', 'Gemm', 'FusedGemm']);

describe('precision modes', () => {
  const feeds = { Input3: randomTensor('float32', [1, 1, 28, 28], createRandom(3)) };
  const cases = [
    { mode: 'force_fp16', weightsAtMost: 0.55, tolerance: 5e-3 },
    { mode: 'allow_fp32_to_fp16', weightsAtMost: 0.55, tolerance: 5e-3 },
    { mode: 'allow_mix_precision', weightsAtMost: 0.55, tolerance: 5e-3 },
    { mode: 'allow_fp32_to_bf16', weightsAtMost: 0.55, tolerance: 5e-2 },
  ] as const;
  for (const c of cases) {
    it(`${c.mode}: narrow weights in WEIGHTS, SIMD kernels, onnxruntime-node's outputs to the type's precision`, async () => {
      const graph = await parseModel(mnist, { inputShapes: shapes });
      const fp32 = await compileModel(graph, { inputShapes: shapes });
      const narrow = await compileModel(graph, { inputShapes: shapes, precisionMode: c.mode });
      expect(narrow.summary.weightsBytes).toBeLessThanOrEqual(fp32.summary.weightsBytes * c.weightsAtMost);
      const read = readOm(narrow.om).model;
      expect(read?.taskInfo.weightStorage).toBeDefined();
      // the device layout is the float32 one: the reader widened WEIGHTS back to its size
      expect(read?.weights.length).toBe(readOm(fp32.om).model?.weights.length);
      const tasks = read?.taskInfo.plans[0]?.streams.flatMap((s) => s.tasks) ?? [];
      const heavy = tasks.filter((t) => t.kind === 'kernel' && KERNEL_OPS.has(t.opType));
      expect(heavy.length).toBeGreaterThan(0);
      for (const t of heavy) expect(t.kind === 'kernel' && t.kernel, `${t.kind === 'kernel' ? t.node : ''}`).toBe('wasm-simd');

      const expected = Object.values(await runOnnxRuntime(mnist, feeds, 1))[0] as HostTensor;
      const got = await run(narrow.om, feeds);
      const full = await run(fp32.om, feeds);
      // error against the output scale (logits near zero make element-wise relative error meaningless);
      // measured 7.1e-4 (float16 weights) and 1.0e-2 (bfloat16)
      const scale = Math.max(...Array.from(expected.data as Float32Array, Math.abs));
      const error = compareTensors('y', got, expected).maxAbsError / scale;
      expect(error).toBeLessThanOrEqual(c.tolerance);
      expect(compareTensors('y', full, expected).maxRelError).toBeLessThanOrEqual(1e-4);
      // rounded weights give (slightly) different logits than the float32 ones
      expect(compareTensors('y', got, full).maxAbsError).toBeGreaterThan(0);
    }, 120_000);
  }

  it('must_keep_origin_dtype and force_fp32 keep a float32 model as it is', async () => {
    const graph = await parseModel(mnist, { inputShapes: shapes });
    const fp32 = await compileModel(graph, { inputShapes: shapes });
    for (const mode of ['must_keep_origin_dtype', 'force_fp32'] as const) {
      const same = await compileModel(graph, { inputShapes: shapes, precisionMode: mode });
      expect(same.summary.weightsBytes).toBe(fp32.summary.weightsBytes);
      expect(readOm(same.om).model?.taskInfo.weightStorage).toBeUndefined();
    }
  }, 120_000);

  it('refuses bfloat16 on the js device with TSGE-E7121, and unknown modes with TSGE-E7002', async () => {
    const graph = await parseModel(mnist, { inputShapes: shapes });
    const bf16 = await compileModel(graph, { inputShapes: shapes, target: 'js', precisionMode: 'allow_fp32_to_bf16' }).catch(
      (e: unknown) => e,
    );
    expect(TsgeError.isInstance(bf16) && bf16.code).toBe('TSGE-E7121');
    const unknown = await compileModel(graph, { precisionMode: 'fp8' as never }).catch((e: unknown) => e);
    expect(TsgeError.isInstance(unknown) && unknown.code).toBe('TSGE-E7002');
  }, 120_000);
});

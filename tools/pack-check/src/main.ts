#!/usr/bin/env node
// `pnpm pack:check`: builds once (`pnpm build`), `pnpm pack`s every public package, checks each
// tarball (inspect-package.ts), installs them in a scratch project outside the workspace and runs
// mnist.onnx and an .om through @tsge/ge's InferenceSession there, comparing with onnxruntime-node,
// and tfjs model.json files through @tsge/adapter-tfjs, comparing with TensorFlow.js (cpu).
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { listPublicPackages, unscopedName } from '@tsge/api-report/packages';
import { buildModel, parseModel } from '@tsge/ge';
import * as tf from '@tensorflow/tfjs';
import * as ort from 'onnxruntime-node';
import * as tar from 'tar';
import { type Problem, inspectPackage } from './inspect-package.js';
import { type PackedPackage, createScratchProject, run } from './scratch-project.js';

/**
 * Problems tolerated, by package and file. An entry that no longer occurs is an error, so the list
 * only shrinks. @tsge/dflow/testing starts nats-server and agents for users' own tests: public on
 * purpose, but named like test code.
 */
const PENDING_PROBLEMS: Readonly<Record<string, readonly string[]>> = {
  '@tsge/dflow': ['dist/testing/nats.d.ts', 'dist/testing/nats.js', 'dist/testing/nats.js.map'],
};

const { values } = parseArgs({
  options: {
    'no-build': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    testdata: { type: 'string', default: '../shared/testdata' },
  },
});
const root = process.cwd();
const mnist = path.resolve(values.testdata, 'models/onnx/mnist.onnx');
const tfjsGraph = path.resolve(values.testdata, 'models/tfjs/dense_model/model.json');
const tfjsLayers = path.resolve(values.testdata, 'models/tfjs/layers_model/model.json');
const started = performance.now();
const temp = mkdtempSync(path.join(os.tmpdir(), 'tsge-pack-check-'));
const failures: string[] = [];

try {
  if (!values['no-build']) run('pnpm', ['build'], root, true);
  const packages = listPublicPackages(root);
  const tarballs = path.join(temp, 'tarballs');
  const packed: PackedPackage[] = [];
  for (const p of packages) {
    run('pnpm', ['pack', '--pack-destination', tarballs], p.directory);
    const prefix = `${p.name.replace(/^@/, '').replace('/', '-')}-`;
    const file = readdirSync(tarballs).find((f) => f.startsWith(prefix) && f.endsWith('.tgz') && /^\d/.test(f.slice(prefix.length)));
    if (!file) throw new Error(`pnpm pack wrote no tarball for ${p.name}`);
    packed.push({ name: p.name, tarball: path.join(tarballs, file) });
    const extracted = path.join(temp, 'extracted', unscopedName(p.name));
    rmSync(extracted, { recursive: true, force: true });
    mkdirSync(extracted, { recursive: true });
    await tar.x({ file: path.join(tarballs, file), cwd: extracted, strip: 1 });
    failures.push(...judge(p.name, inspectPackage(extracted)));
  }
  console.log(`pack-check: packed ${packed.length} packages: ${packed.map((p) => path.basename(p.tarball)).join(', ')}`);

  // third-party peers of the packages (onnxruntime-common for the adapter), at their pinned versions
  const peers: Record<string, string> = {};
  for (const p of packages) {
    const manifest = JSON.parse(readFileSync(path.join(p.directory, 'package.json'), 'utf8')) as {
      peerDependencies?: Record<string, string>;
    };
    for (const [name, range] of Object.entries(manifest.peerDependencies ?? {})) if (!name.startsWith('@tsge/')) peers[name] = range;
  }
  const tfjsAdapter = packed.some((p) => p.name === '@tsge/adapter-tfjs');
  // tfjs-core alone has no backend to make tensors on: the scratch project brings the cpu one
  if (tfjsAdapter) peers['@tensorflow/tfjs-backend-cpu'] = peers['@tensorflow/tfjs-core'] ?? '4.22.0';
  const scratch = path.join(temp, 'scratch');
  createScratchProject(scratch, packed, peers);
  run('pnpm', ['install', '--reporter=append-only', '--config.confirmModulesPurge=false'], scratch);
  const omFile = path.join(temp, 'mnist.om');
  writeFileSync(omFile, await buildModel(await parseModel(mnist)));
  const adapter = packed.some((p) => p.name === '@tsge/adapter-onnxruntime') ? ['--adapter'] : [];
  const tfjsArgs = tfjsAdapter ? [tfjsGraph, tfjsLayers, '--tfjs'] : [];
  const report = JSON.parse(
    run('node', ['run-models.mjs', mnist, omFile, ...tfjsArgs, ...adapter], scratch)
      .trim()
      .split('\n')
      .at(-1) as string,
  ) as Record<string, { origin: string; outputs: Record<string, { dims: number[]; data: number[] }> }>;
  const expected = await onnxRuntimeOutputs(mnist);
  const tfjsExpected = tfjsAdapter ? await tfjsOutputs() : {};
  // the front door reports where its .om came from; the adapter runs say which API they used
  for (const [what, result] of Object.entries(report)) {
    const tfjsRun = tfjsExpected[what];
    const problems = compare(`scratch ${what} (${result.origin})`, result.outputs, tfjsRun ?? expected);
    failures.push(...problems);
    const model = tfjsRun ? (what === 'tfjsGraph' ? 'dense_model' : 'layers_model') : what === 'om' ? 'mnist.om' : 'mnist.onnx';
    if (problems.length === 0)
      console.log(
        `pack-check: scratch project ran ${model} (${result.origin}) and matched ${tfjsRun ? 'TensorFlow.js (cpu)' : 'onnxruntime-node'}`,
      );
  }
  for (const what of Object.keys(tfjsExpected)) if (!report[what]) failures.push(`scratch run reported no ${what} result`);
} catch (error) {
  failures.push(String(error instanceof Error ? (error.stack ?? error.message) : error));
} finally {
  if (values.keep) console.log(`pack-check: kept ${temp}`);
  else rmSync(temp, { recursive: true, force: true });
}

for (const failure of failures) console.error(`pack-check: ${failure}`);
console.log(
  `pack-check: ${failures.length === 0 ? 'ok' : `${failures.length} problem(s)`} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
process.exitCode = failures.length === 0 ? 0 : 1;

function judge(name: string, problems: readonly Problem[]): string[] {
  const pending = new Set(PENDING_PROBLEMS[name] ?? []);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const problem of problems) {
    if (pending.has(problem.file)) seen.add(problem.file);
    else out.push(`${name}: ${problem.file}: ${problem.message}`);
  }
  for (const file of pending) if (!seen.has(file)) out.push(`${name}: ${file} is fine now: remove it from PENDING_PROBLEMS`);
  return out;
}

function digitLike(): Float32Array {
  const data = new Float32Array(28 * 28);
  for (let i = 0; i < data.length; i++) data[i] = ((i * 37) % 255) / 255;
  return data;
}

async function onnxRuntimeOutputs(file: string): Promise<Record<string, { dims: readonly number[]; data: Float32Array }>> {
  const session = await ort.InferenceSession.create(file);
  try {
    const outputs = await session.run({ [session.inputNames[0] as string]: new ort.Tensor('float32', digitLike(), [1, 1, 28, 28]) });
    return Object.fromEntries(Object.entries(outputs).map(([name, t]) => [name, { dims: t.dims, data: t.data as Float32Array }]));
  } finally {
    await session.release();
  }
}

/** The same tfjs models and inputs the scratch script runs, on TensorFlow.js's own cpu backend. */
async function tfjsOutputs(): Promise<Record<string, Record<string, { dims: readonly number[]; data: Float32Array }>>> {
  await tf.setBackend('cpu');
  const handler = (file: string): tf.io.IOHandler => ({
    load: async () => {
      const json = JSON.parse(readFileSync(file, 'utf8')) as tf.io.ModelJSON;
      return tf.io.getModelArtifactsForJSON(json, async (manifest) => [
        manifest.flatMap((group) => group.weights),
        manifest.flatMap((group) => group.paths.map((p) => new Uint8Array(readFileSync(path.join(path.dirname(file), p))).buffer)),
      ]);
    },
  });
  const values = async (tensor: tf.Tensor) => ({ dims: tensor.shape, data: (await tensor.data()) as Float32Array });
  const graph = await tf.loadGraphModel(handler(tfjsGraph));
  const layers = await tf.loadLayersModel(handler(tfjsLayers));
  const x = tf.tensor2d([[0.5], [-1], [2]]);
  const ids = tf.tensor2d(
    Array.from({ length: 20 }, (_, i) => (i * 37) % 100),
    [2, 10],
  );
  try {
    return {
      tfjsGraph: { [graph.outputNodes[0] as string]: await values(graph.execute(x) as tf.Tensor) },
      tfjsLayers: { y: await values(layers.predict(ids) as tf.Tensor) },
    };
  } finally {
    graph.dispose();
    layers.dispose();
    tf.dispose([x, ids]);
  }
}

function compare(
  what: string,
  got: Record<string, { dims: number[]; data: number[] }>,
  expected: Record<string, { dims: readonly number[]; data: Float32Array }>,
): string[] {
  const out: string[] = [];
  for (const [name, want] of Object.entries(expected)) {
    const value = got[name];
    if (!value) {
      out.push(`${what}: output ${name} is missing`);
      continue;
    }
    if (value.dims.join() !== want.dims.join()) out.push(`${what}: output ${name} has dims [${value.dims}], onnxruntime [${want.dims}]`);
    let worst = 0;
    for (let i = 0; i < want.data.length; i++) worst = Math.max(worst, Math.abs((value.data[i] ?? Number.NaN) - (want.data[i] as number)));
    if (!(worst <= 1e-4)) out.push(`${what}: output ${name} differs from onnxruntime-node by ${worst}`);
  }
  return out;
}

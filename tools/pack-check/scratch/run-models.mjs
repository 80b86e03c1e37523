// Runs in a scratch project outside the workspace that installed only the packed tarballs: the
// front door on an ONNX file (compiled in process) and on an .om, (--adapter) the onnxruntime
// adapter on the ONNX file, and (--tfjs) the TensorFlow.js adapter on a graph and a layers
// model.json with @tensorflow/tfjs-core and its cpu backend, printing the outputs as JSON.
import { pathToFileURL } from 'node:url';
import { InferenceSession, createTensor } from '@tsge/ge';

const [onnxFile, omFile, tfjsGraphFile, tfjsLayersFile] = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));

/** The same deterministic digit-like input the checker feeds onnxruntime-node. */
function input() {
  const data = new Float32Array(28 * 28);
  for (let i = 0; i < data.length; i++) data[i] = ((i * 37) % 255) / 255;
  return data;
}

async function runFrontDoor(file) {
  const session = await InferenceSession.create(file, { load: { threads: 2 } });
  try {
    const outputs = await session.run({ [session.inputNames[0]]: createTensor('float32', [1, 1, 28, 28], input()) });
    const result = {};
    for (const [name, value] of Object.entries(outputs)) result[name] = { dims: [...value.dims], data: [...value.data] };
    return {
      origin: `InferenceSession, ${session.origin}`,
      inputNames: session.inputNames,
      outputNames: session.outputNames,
      outputs: result,
    };
  } finally {
    await session.release();
  }
}

/** The same model through the onnxruntime-node drop-in and through onnxruntime-common's backend. */
async function runAdapter(file, viaCommon) {
  const ort = await import('@tsge/adapter-onnxruntime');
  let session;
  if (viaCommon) {
    await import('@tsge/adapter-onnxruntime/register');
    const common = await import('onnxruntime-common');
    session = await common.InferenceSession.create(file, { executionProviders: ['tsge'] });
  } else {
    session = await ort.InferenceSession.create(file, { intraOpNumThreads: 2 });
  }
  try {
    const outputs = await session.run({ [session.inputNames[0]]: new ort.Tensor('float32', input(), [1, 1, 28, 28]) });
    const result = {};
    for (const [name, value] of Object.entries(outputs)) result[name] = { dims: [...value.dims], data: [...value.data] };
    return { origin: viaCommon ? 'adapter as onnxruntime-common backend' : 'adapter as onnxruntime-node drop-in', outputs: result };
  } finally {
    await session.release();
  }
}

/** The graph model through a file:// URL and the layers model through its path, on tfjs-core's cpu backend. */
async function runTfjsAdapter() {
  const tf = await import('@tensorflow/tfjs-core');
  await import('@tensorflow/tfjs-backend-cpu');
  await tf.setBackend('cpu');
  const { loadGraphModel, loadLayersModel } = await import('@tsge/adapter-tfjs');
  const values = async (tensor) => ({ dims: [...tensor.shape], data: [...(await tensor.data())] });
  const graph = await loadGraphModel(pathToFileURL(tfjsGraphFile).href, { tsge: { threads: 2 } });
  const x = tf.tensor2d([[0.5], [-1], [2]]);
  const y = await graph.executeAsync(x);
  const graphResult = { origin: 'adapter-tfjs loadGraphModel', outputs: { [graph.outputNodes[0]]: await values(y) } };
  await graph.release();
  const layers = await loadLayersModel(tfjsLayersFile, { tsge: { threads: 2 } });
  const ids = tf.tensor2d(
    Array.from({ length: 20 }, (_, i) => (i * 37) % 100),
    [2, 10],
  );
  // the synchronous predict, as tfjs users call it (InferenceSession.runSync from the tarballs)
  const z = layers.predict(ids);
  const layersResult = { origin: 'adapter-tfjs loadLayersModel', outputs: { y: await values(z) } };
  await layers.release();
  tf.dispose([x, y, ids, z]);
  return { tfjsGraph: graphResult, tfjsLayers: layersResult };
}

const report = { onnx: await runFrontDoor(onnxFile), om: await runFrontDoor(omFile) };
if (process.argv.includes('--adapter')) {
  report.adapter = await runAdapter(onnxFile, false);
  report.adapterBackend = await runAdapter(onnxFile, true);
}
if (process.argv.includes('--tfjs')) Object.assign(report, await runTfjsAdapter());
process.stdout.write(`${JSON.stringify(report)}\n`);

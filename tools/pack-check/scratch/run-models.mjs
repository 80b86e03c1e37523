// Runs in a scratch project outside the workspace that installed only the packed tarballs: the
// front door on an ONNX file (compiled in process) and on an .om, printing the outputs as JSON.
import { InferenceSession, createTensor } from '@tsge/ge';

const [onnxFile, omFile] = process.argv.slice(2);

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
    return { origin: session.origin, inputNames: session.inputNames, outputNames: session.outputNames, outputs: result };
  } finally {
    await session.release();
  }
}

const report = { onnx: await runFrontDoor(onnxFile), om: await runFrontDoor(omFile) };
process.stdout.write(`${JSON.stringify(report)}\n`);

// A program written for onnxruntime-node, imported as it is. The drop-in test runs it twice: once
// on onnxruntime-node, once with `onnxruntime-node` resolved to @tsge/adapter-onnxruntime.
import * as ort from 'onnxruntime-node';

export interface Transcript {
  readonly steps: Record<string, unknown>;
}

type Plain = { type: string; dims: readonly number[]; data: unknown[] };

function plain(tensor: ort.Tensor): Plain {
  return {
    type: tensor.type,
    dims: [...tensor.dims],
    data: Array.from(tensor.data as ArrayLike<unknown>, (v) => (typeof v === 'bigint' ? `${v}n` : v)),
  };
}

async function failure(action: () => Promise<unknown>): Promise<{ name: string; message: string } | 'no error'> {
  try {
    await action();
    return 'no error';
  } catch (error) {
    return { name: (error as Error).name, message: (error as Error).message };
  }
}

/** `node` is the ONNX backend node-test folder; `mnist` the MNIST model file. */
export async function runScript(mnist: string, node: string): Promise<Transcript> {
  const steps: Record<string, unknown> = {};
  const session = await ort.InferenceSession.create(mnist, { intraOpNumThreads: 1, graphOptimizationLevel: 'all' });
  steps.names = { inputs: session.inputNames, outputs: session.outputNames };
  steps.metadata = { inputs: session.inputMetadata, outputs: session.outputMetadata };

  const pixels = new Float32Array(784).map((_, i) => ((i * 37) % 255) / 255);
  const input = new ort.Tensor('float32', pixels, [1, 1, 28, 28]);
  steps.inputTensor = { type: input.type, dims: input.dims, size: input.size, location: input.location };
  const all = await session.run({ Input3: input });
  steps.run = Object.fromEntries(Object.entries(all).map(([k, v]) => [k, plain(v)]));
  const fetched = await session.run({ Input3: input }, ['Plus214_Output_0']);
  steps.runWithFetches = Object.keys(fetched);
  const target = new ort.Tensor('float32', new Float32Array(10), [1, 10]);
  const preallocated = await session.run({ Input3: input }, { Plus214_Output_0: target });
  steps.preallocated = { result: plain(preallocated.Plus214_Output_0 as ort.Tensor), target: plain(target) };
  const withOptions = await session.run({ Input3: input }, { logSeverityLevel: 3, tag: 'one' });
  steps.runWithOptions = Object.keys(withOptions);
  steps.extraFeedIgnored = Object.keys(await session.run({ Input3: input, unused: input }));
  steps.reshaped = plain(input.reshape([1, 784])).dims;

  steps.errors = {
    wrongType: await failure(() => session.run({ Input3: new ort.Tensor('float64', new Float64Array(784), [1, 1, 28, 28]) })),
    wrongDims: await failure(() => session.run({ Input3: new ort.Tensor('float32', new Float32Array(1568), [2, 1, 28, 28]) })),
    wrongRank: await failure(() => session.run({ Input3: new ort.Tensor('float32', pixels, [1, 28, 28]) })),
    missingInput: await failure(() => session.run({})),
    unknownFetch: await failure(() => session.run({ Input3: input }, ['nope'])),
    emptyFetches: await failure(() => session.run({ Input3: input }, [])),
    feedsNotObject: await failure(() => session.run(input as never)),
    wrongPreallocatedDims: await failure(() =>
      session.run({ Input3: input }, { Plus214_Output_0: new ort.Tensor('float32', new Float32Array(5), [1, 5]) }),
    ),
    wrongPreallocatedType: await failure(() =>
      session.run({ Input3: input }, { Plus214_Output_0: new ort.Tensor('int32', new Int32Array(10), [1, 10]) }),
    ),
  };
  await session.release();
  steps.afterRelease = await failure(() => session.run({ Input3: input }));
  steps.releaseTwice = await failure(() => session.release());
  steps.missingFile = await failure(() => ort.InferenceSession.create(`${mnist}.missing`));

  // Tensor round trips through real models: float16, bool, uint8, int64 and strings in and out
  const roundTrips: Record<string, unknown> = {};
  const trips = [
    'test_identity',
    'test_not_2d',
    'test_add_uint8',
    'test_cast_FLOAT_to_FLOAT16',
    'test_equal_string',
    'test_equal_uint64',
    'test_add_bcast',
  ];
  for (const test of trips) {
    const s = await ort.InferenceSession.create(`${node}/${test}/model.onnx`);
    try {
      const feeds: Record<string, ort.Tensor> = {};
      for (const [k, meta] of s.inputMetadata.entries()) if (meta.isTensor) feeds[meta.name] = sample(meta.type, meta.shape, k);
      roundTrips[test] = Object.fromEntries(Object.entries(await s.run(feeds)).map(([k, v]) => [k, plain(v)]));
    } finally {
      await s.release();
    }
  }
  steps.roundTrips = roundTrips;
  return { steps };
}

/** A deterministic tensor of any type onnxruntime-common holds; symbolic dims become 2. */
function sample(type: ort.Tensor.Type, shape: readonly (number | string)[], k: number): ort.Tensor {
  const dims = shape.map((d) => (typeof d === 'number' && d >= 0 ? d : 2));
  const n = dims.reduce((a, b) => a * b, 1);
  const at = (i: number) => (i * 7 + k * 3) % 11;
  switch (type) {
    case 'string':
      return new ort.Tensor(
        'string',
        Array.from({ length: n }, (_, i) => `s${at(i) % 3}`),
        dims,
      );
    case 'bool':
      return new ort.Tensor(
        'bool',
        Uint8Array.from({ length: n }, (_, i) => at(i) & 1),
        dims,
      );
    case 'int64':
      return new ort.Tensor(
        'int64',
        BigInt64Array.from({ length: n }, (_, i) => BigInt(at(i) - 5)),
        dims,
      );
    case 'uint64':
      return new ort.Tensor(
        'uint64',
        BigUint64Array.from({ length: n }, (_, i) => BigInt(at(i) % 4)),
        dims,
      );
    case 'uint8':
      return new ort.Tensor(
        'uint8',
        Uint8Array.from({ length: n }, (_, i) => at(i) * 20),
        dims,
      );
    case 'float16':
      return new ort.Tensor(
        'float16',
        Uint16Array.from({ length: n }, (_, i) => 0x3c00 + at(i)),
        dims,
      );
    default:
      return new ort.Tensor(
        'float32',
        Float32Array.from({ length: n }, (_, i) => at(i) / 3 - 1.5),
        dims,
      );
  }
}

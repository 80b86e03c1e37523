// Every coral TFLite model end to end (parse → compile → .om → executor) against LiteRT on the
// same inputs. Quantized outputs are compared after dequantization with atol 1e-3, which for
// these uint8 outputs (steps of 1/256 and more) means identical integers; the classifiers must
// also give the same top-5.
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildModel, loadModel, parseModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import { TsgeError, createTensor, isHostTensor } from '@tsge/metadef';
import { createRandom } from '@tsge/run';
import { describe, expect, it } from 'vitest';
import { compileLiteRt } from './litert.fixture.js';
import { lstmClassifierReference } from './lstm-reference.fixture.js';
import { dequantizedOutputs, quantizationOf, seededInput, topK, withFirstOutput } from './tflite.fixture.js';

const coral = path.resolve(process.cwd(), '../shared/testdata/models/tflite/coral');

/** Runs a .tflite file through tsge and LiteRT on seeded inputs; returns both outputs by name. */
async function runBoth(file: string, seed = 7) {
  const model = await loadModel(await buildModel(await parseModel(file)), { threads: 1 });
  const reference = await compileLiteRt(file);
  try {
    expect(reference.inputs.map((d) => d.name)).toEqual(model.inputMetadata.map((m) => m.name));
    const inputs = model.inputMetadata.map((meta, i) => seededInput(meta.dtype, meta.shape as number[], seed + i));
    const got = await model.run(Object.fromEntries(model.inputMetadata.map((m, i) => [m.name, inputs[i] as HostTensor])));
    const expected = await reference.run(inputs);
    expect(Object.keys(got).sort()).toEqual(reference.outputs.map((o) => o.name).sort());
    return reference.outputs.map((details, i) => {
      const mine = got[details.name];
      expect(isHostTensor(mine), details.name).toBe(true);
      return { name: details.name, mine: mine as HostTensor, theirs: expected[i] as HostTensor };
    });
  } finally {
    reference.delete();
    await model.release();
  }
}

function maxAbs(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0;
  for (let k = 0; k < a.length; k++) worst = Math.max(worst, Math.abs((a[k] as number) - (b[k] as number)));
  return worst;
}

describe('coral TFLite models match LiteRT', () => {
  for (const c of [
    { file: 'mobilenet_v2_1.0_224_quant.tflite', classifier: true },
    { file: 'mobilenet_v1_0.25_128_quant.tflite', classifier: true },
    { file: 'split_concat.tflite', classifier: false },
  ]) {
    it(c.file, async () => {
      const file = path.join(coral, c.file);
      const quant = quantizationOf(readFileSync(file));
      for (const { name, mine, theirs } of await runBoth(file)) {
        expect(mine.dims, name).toEqual(theirs.dims);
        const [a, b] = dequantizedOutputs(mine, theirs, quant.get(name));
        expect(maxAbs(a, b), `${name} max abs error`).toBeLessThanOrEqual(1e-3);
        if (c.classifier) expect(topK(a, 5)).toEqual(topK(b, 5));
      }
    }, 300_000);
  }

  it('mobilenet_v2_1.0_224_quant.tflite: every output integer equals LiteRT on uniform-random images', async () => {
    // the bench's input (createRandom(7)) and more seeds: the residual ADDs must round as XNNPACK does
    const file = path.join(coral, 'mobilenet_v2_1.0_224_quant.tflite');
    const model = await loadModel(await buildModel(await parseModel(file)), { threads: 1 });
    const reference = await compileLiteRt(file);
    try {
      const meta = model.inputMetadata[0];
      if (!meta) throw new Error('no input');
      const dims = meta.shape as number[];
      const random = createRandom(7);
      const benchInput = createTensor(
        'uint8',
        dims,
        Uint8Array.from({ length: 224 * 224 * 3 }, () => Math.floor(random() * 256)),
      );
      for (const input of [benchInput, seededInput('uint8', dims, 1), seededInput('uint8', dims, 2)]) {
        const mine = Object.values(await model.run({ [meta.name]: input }))[0] as HostTensor;
        const theirs = (await reference.run([input]))[0] as HostTensor;
        expect(Array.from(mine.data as Uint8Array)).toEqual(Array.from(theirs.data as Uint8Array));
      }
    } finally {
      reference.delete();
      await model.release();
    }
  }, 300_000);

  it('deeplabv3_mnv2_dm05_pascal_quant.tflite (logits and ArgMax)', async () => {
    // LiteRT.js cannot return the model's int64 ArgMax output, so both engines also run a copy whose
    // output is the ArgMax input (the uint8 class logits), and tsge's ArgMax is checked on LiteRT's logits
    const file = path.join(coral, 'deeplabv3_mnv2_dm05_pascal_quant.tflite');
    const bytes = new Uint8Array(readFileSync(file));
    const dir = await mkdtemp(path.join(tmpdir(), 'tsge-deeplab-'));
    const logitsFile = path.join(dir, 'logits.tflite');
    writeFileSync(logitsFile, withFirstOutput(bytes, 184));
    const [logits] = await runBoth(logitsFile);
    if (!logits) throw new Error('no output');
    expect(logits.mine.dims).toEqual([1, 513, 513, 21]);
    const quant = quantizationOf(readFileSync(logitsFile)).get(logits.name);
    const [a, b] = dequantizedOutputs(logits.mine, logits.theirs, quant);
    expect(maxAbs(a, b), 'logits max abs error').toBeLessThanOrEqual(1e-3);

    const model = await loadModel(await buildModel(await parseModel(file)), { threads: 1 });
    try {
      const meta = model.inputMetadata[0];
      if (!meta) throw new Error('no input');
      const out = Object.values(await model.run({ [meta.name]: seededInput(meta.dtype, meta.shape as number[], 7) }))[0] as HostTensor;
      expect(out.type).toBe('int64');
      expect(out.dims).toEqual([1, 513, 513]);
      const theirs = logits.theirs.data as Uint8Array;
      const classes = out.data as BigInt64Array;
      let differ = 0;
      for (let p = 0; p < 513 * 513; p++) {
        let best = 0;
        for (let k = 1; k < 21; k++) if ((theirs[p * 21 + k] as number) > (theirs[p * 21 + best] as number)) best = k;
        if (Number(classes[p]) !== best) differ++;
      }
      expect(differ, 'pixels whose class differs from the argmax of LiteRT logits').toBe(0);
    } finally {
      await model.release();
    }
  }, 300_000);

  it('keras_lstm_mnist_ptq.tflite (UNIDIRECTIONAL_SEQUENCE_LSTM) against a float reference', async () => {
    // LiteRT.js 2.5.3 refuses this model ("Variable tensors not yet supported", then "Intermediate
    // tensors not yet supported"), so the reference is a plain float64 implementation of the TFLite
    // ops on the dequantized weights (lstm-reference.fixture.ts). tsge runs the LSTM in float between
    // QDQ nodes; LiteRT's integer LSTM would differ from both by its fixed-point approximations.
    const file = path.join(coral, 'keras_lstm_mnist_ptq.tflite');
    const bytes = new Uint8Array(readFileSync(file));
    const model = await loadModel(await buildModel(await parseModel(file)), { threads: 1 });
    try {
      for (const seed of [3, 4, 5, 6]) {
        const input = seededInput('uint8', [1, 28, 28], seed);
        const out = Object.values(await model.run({ [model.inputMetadata[0]?.name ?? '']: input }))[0] as HostTensor;
        const reference = lstmClassifierReference(bytes, input.data as Uint8Array);
        const q = quantizationOf(bytes).get('StatefulPartitionedCall:0');
        const [probabilities] = dequantizedOutputs(out, out, q);
        expect(maxAbs(probabilities, reference), `seed ${seed}: probabilities`).toBeLessThanOrEqual(2 / 256 + 1e-6);
        expect(topK(probabilities, 1)).toEqual(topK(reference, 1));
      }
    } finally {
      await model.release();
    }
  }, 300_000);

  it('invalid_model_invoking_error.tflite fails with a coded error', async () => {
    const error = await parseModel(path.join(coral, 'invalid_model_invoking_error.tflite')).catch((e: unknown) => e);
    expect(TsgeError.isInstance(error)).toBe(true);
    expect((error as TsgeError).code).toBe('TSGE-E3402');
    expect((error as TsgeError).message).toContain('fake-op-double');
  });
});

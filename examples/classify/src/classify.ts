import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main as atc } from '@tsge/atc';
import { loadModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import { tfliteIo } from '@tsge/parser-tflite';
import { decodeImage } from './image.js';
import { type Normalisation, imageToInput } from './preprocess.js';

export interface ClassifyOptions {
  /** The .tflite classifier. */
  readonly model: string;
  /** One label per line, line i naming class i. */
  readonly labels: string;
  readonly top?: number;
  readonly normalisation?: Normalisation;
  /** Threads of the executor (default: the machine's). */
  readonly threads?: number;
}

export interface Prediction {
  readonly index: number;
  readonly label: string;
  /** The model's output for the class, dequantized (a probability for a softmax output). */
  readonly score: number;
}

/**
 * Compiles the classifier with atc (to an .om in a temporary folder), loads the .om with the
 * executor and classifies each image; returns the top predictions per image.
 */
export async function classify(images: readonly string[], options: ClassifyOptions): Promise<Prediction[][]> {
  const labels = (await readFile(options.labels, 'utf8')).split(/\r?\n/);
  const io = tfliteIo(new Uint8Array(await readFile(options.model)), options.model);
  const input = io.inputs[0];
  const output = io.outputs[0];
  if (!input || !output) throw new Error(`${options.model} has no input or output`);
  const dir = await mkdtemp(path.join(tmpdir(), 'tsge-classify-'));
  try {
    const om = path.join(dir, 'model.om');
    const errors: string[] = [];
    const code = await atc([`--model=${options.model}`, `--output=${om}`, '--log=error'], {
      stdout: () => {},
      stderr: (t) => errors.push(t),
    });
    if (code !== 0) throw new Error(`atc failed:\n${errors.join('')}`);
    const model = await loadModel(om, options.threads !== undefined ? { threads: options.threads } : {});
    try {
      const results: Prediction[][] = [];
      for (const image of images) {
        const rgb = decodeImage(new Uint8Array(await readFile(image)), image);
        const tensor = imageToInput(rgb, input, options.normalisation ?? { mean: 127.5, std: 127.5 });
        const outputs = await model.run({ [input.name]: tensor });
        const scores = outputs[output.name] as HostTensor | undefined;
        if (!scores) throw new Error(`the model gave no output ${output.name}`);
        const q = output.quantization;
        const values = Array.from(scores.data as ArrayLike<number>, (v) => (q ? (v - q.zeroPoint) * q.scale : v));
        const order = values.map((_, i) => i).sort((a, b) => (values[b] as number) - (values[a] as number) || a - b);
        results.push(
          order
            .slice(0, options.top ?? 5)
            .map((index) => ({ index, label: labels[index] ?? `class ${index}`, score: values[index] as number })),
        );
      }
      return results;
    } finally {
      await model.release();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

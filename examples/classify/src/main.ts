// pnpm classify <image> [more images] [--model m.tflite] [--labels labels.txt] [--top 5]
// Prints the top predictions of each image, the top-1 first.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { classify } from './classify.js';

const coral = path.resolve(import.meta.dirname, '../../../../shared/testdata/models/tflite/coral');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    model: { type: 'string', default: path.join(coral, 'mobilenet_v2_1.0_224_quant.tflite') },
    labels: { type: 'string', default: path.join(coral, 'imagenet_labels.txt') },
    top: { type: 'string', default: '5' },
    help: { type: 'boolean', short: 'h' },
  },
});
const top = Number(values.top);
if (values.help || positionals.length === 0 || !(Number.isInteger(top) && top > 0)) {
  process.stderr.write('usage: pnpm classify <image.bmp|png|jpg> [...] [--model m.tflite] [--labels labels.txt] [--top 5]\n');
  process.exit(values.help ? 0 : 1);
}
try {
  const results = await classify(positionals, { model: values.model, labels: values.labels, top });
  results.forEach((predictions, i) => {
    if (positionals.length > 1) process.stdout.write(`${i ? '\n' : ''}${positionals[i]}\n`);
    for (const p of predictions) process.stdout.write(`${p.score.toFixed(4)}  ${String(p.index).padStart(4)}  ${p.label}\n`);
  });
} catch (error) {
  process.stderr.write(`classify: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

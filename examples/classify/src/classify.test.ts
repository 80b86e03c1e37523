import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { classify } from './classify.js';

const testdata = path.resolve(process.cwd(), '../shared/testdata');
const coral = path.join(testdata, 'models/tflite/coral');

describe('classify (mobilenet_v2 quant through atc → .om → executor)', () => {
  it('sees a cat in cat.bmp and a military uniform in grace_hopper.bmp', async () => {
    const [cat, hopper] = await classify([path.join(testdata, 'images/cat.bmp'), path.join(testdata, 'images/grace_hopper.bmp')], {
      model: path.join(coral, 'mobilenet_v2_1.0_224_quant.tflite'),
      labels: path.join(coral, 'imagenet_labels.txt'),
      threads: 1,
    });
    expect(cat?.[0]?.label).toMatch(/\bcat\b/);
    expect(hopper?.map((p) => p.label)).toContain('military uniform');
  }, 300_000);
});

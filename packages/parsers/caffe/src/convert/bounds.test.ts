// Shapes from a prototxt are checked before anything is sized from them (issue 11; found by
// `pnpm fuzz --campaign caffe --seed 1 --case 3355` and `--case 2465`).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { initializeCaffemodel, parseCaffe } from '../parse-caffe.js';

const bvlc = path.resolve(process.cwd(), '../shared/testdata/models/caffe/bvlc');
const text = (file: string) => readFileSync(path.join(bvlc, file), 'utf8');

describe('Caffe shapes from the file', () => {
  it('a negative Input dim is a coded error naming the input', async () => {
    const net = text('bvlc_reference_caffenet.deploy.prototxt').replace('dim: 3', 'dim: -2147483648');
    const result = await parseCaffe({ bytes: new TextEncoder().encode(net), path: 'caffenet.prototxt' });
    expect(result.graph).toBeUndefined();
    expect(result.diagnostics[0]?.code).toBe('TSGE-E3209');
    expect(result.diagnostics[0]?.message).toContain('every dim must be a non-negative integer');
  });

  it('a weight blob that padding made huge is refused before it is filled', async () => {
    const net = text('cifar10_quick.prototxt').replace('pad: 2', 'pad: 1023');
    const { caffemodel, diagnostics } = await initializeCaffemodel(new TextEncoder().encode(net));
    expect(caffemodel).toBeUndefined();
    expect(diagnostics[0]?.code).toBe('TSGE-E3205');
    expect(diagnostics[0]?.message).toMatch(/ip1.*exceeds 134217728 values/);
  }, 60_000);
});

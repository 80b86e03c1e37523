import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadModel } from '@tsge/ge';
import { describe, expect, it } from 'vitest';
import { main } from './cli.js';

const coral = resolve(process.cwd(), '../shared/testdata/models/tflite/coral');
const dir = mkdtempSync(join(tmpdir(), 'atc-tflite-'));

async function run(argv: string[]): Promise<{ code: number; err: string }> {
  let err = '';
  const code = await main(argv, { stdout: () => {}, stderr: (t) => (err += t) });
  return { code, err };
}

describe('atc with TFLite models', () => {
  it('compiles a .tflite by extension and with --framework=20', async () => {
    for (const extra of [[], ['--framework=20']]) {
      const output = join(dir, `split${extra.length}`);
      const r = await run([`--model=${join(coral, 'split_concat.tflite')}`, `--output=${output}`, ...extra]);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toContain('(tflite)');
      const model = await loadModel(`${output}.om`, { threads: 1 });
      expect(model.inputMetadata.map((m) => m.name)).toEqual(['input1', 'inputs/rnn1', 'inputs/rnn2']);
      await model.release();
    }
  });

  it('refuses a model with a custom op with its code and name', async () => {
    const r = await run([`--model=${join(coral, 'invalid_model_invoking_error.tflite')}`, `--output=${join(dir, 'bad')}`]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('TSGE-E3402');
    expect(r.err).toContain('fake-op-double');
    expect(r.err).not.toMatch(/\n\s+at /);
  });
});

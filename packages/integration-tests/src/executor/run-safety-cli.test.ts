// tsge-run's safety flags end to end on real models: --timeout stops a Loop fed an endless trip
// count (TSGE-E6080), and an .om whose KERNELS partition holds WebAssembly loads only with
// --allow-model-wasm (TSGE-E6081 otherwise).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compileModel, parseModel } from '@tsge/ge';
import { createTensor } from '@tsge/metadef';
import { readOm, writeOm } from '@tsge/om';
import { decodeTensorProto } from '@tsge/parser-onnx';
import { encodeNpy, main } from '@tsge/run';
import { describe, expect, it } from 'vitest';

const testdata = path.resolve(process.cwd(), '../shared/testdata');
const loop11 = path.join(testdata, 'onnx-backend/node/test_loop11');
const dir = mkdtempSync(path.join(os.tmpdir(), 'tsge-run-safety-'));

async function tsgeRun(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    argv,
    (s) => out.push(s),
    (s) => err.push(s),
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('tsge-run safety flags', () => {
  it('--timeout stops an endless Loop run with TSGE-E6080', async () => {
    const input = (i: number) => decodeTensorProto(new Uint8Array(readFileSync(path.join(loop11, `test_data_set_0/input_${i}.pb`))));
    const graph = await parseModel(path.join(loop11, 'model.onnx'));
    const names = graph.inputNodes().map((n) => n.name);
    const endless = createTensor('int64', [...input(0).dims], BigInt64Array.from([10n ** 15n]));
    const files = [endless, input(1), input(2)].map((t, i) => {
      const file = path.join(dir, `in${i}.npy`);
      writeFileSync(file, encodeNpy(t));
      return `${names[i]}=${file}`;
    });
    const args = ['--model', path.join(loop11, 'model.onnx'), ...files.flatMap((f) => ['--input', f]), '--threads', '1'];
    const stopped = await tsgeRun([...args, '--timeout', '300']);
    expect(stopped.code).toBe(2);
    expect(stopped.err).toMatch(/TSGE-E6080.*300 ms/);
    const bad = await tsgeRun([...args, '--timeout', '0']);
    expect(bad.err).toContain('TSGE-E7002');
  });

  it('loads WebAssembly from an .om only with --allow-model-wasm', async () => {
    const graph = await parseModel(path.join(testdata, 'models/onnx/mnist.onnx'));
    const { model } = readOm((await compileModel(graph)).om);
    if (!model) throw new Error('mnist compiles');
    // an (empty, valid) module in KERNELS, as a hand-made file could carry
    const wasm = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
    const om = writeOm({
      ...model,
      kernels: [{ name: 'hand_made', bytes: wasm }],
      modelName: model.header.modelName,
      target: model.header.target,
      flags: model.header.flags,
    });
    const file = path.join(dir, 'with-wasm.om');
    writeFileSync(file, om);
    const refused = await tsgeRun(['--model', file, '--threads', '1']);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/TSGE-E6081.*"hand_made".*--allow-model-wasm/);
    const allowed = await tsgeRun(['--model', file, '--threads', '1', '--allow-model-wasm', '--json']);
    expect(allowed.err).toBe('');
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.out).outputs[0].dims).toEqual([1, 10]);
  });
});

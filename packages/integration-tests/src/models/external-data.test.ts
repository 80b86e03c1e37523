// External data of an untrusted model (issue 11, item 6): mnist with its initializers moved to a
// side file parses and runs as the embedded model does, reading only each tensor's range; a side
// file that leaves the model's folder through a symlink, a FIFO, a device or a short file is a
// coded error naming the path, in parseModel and in atc alike.
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main as atc } from '@tsge/atc';
import { MAX_FILE_BYTES, compileModel, loadModel, parseModel } from '@tsge/ge';
import { type HostTensor, TsgeError } from '@tsge/metadef';
import { afterAll, describe, expect, it } from 'vitest';
import { externalizeInitializers } from './external-data.fixture.js';

const mnist = path.resolve(process.cwd(), '../shared/testdata/models/onnx/mnist.onnx');
const root = mkdtempSync(path.join(tmpdir(), 'tsge-external-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let folders = 0;
/** A folder holding model.onnx whose initializers live in `location`; returns the model path. */
function modelFolder(location = 'weights.bin', base = 0): { dir: string; model: string; data: Uint8Array } {
  const dir = path.join(root, `m${folders++}`);
  mkdirSync(dir);
  const { model, data, count } = externalizeInitializers(readFileSync(mnist), location, base);
  expect(count).toBe(6);
  writeFileSync(path.join(dir, 'model.onnx'), model);
  return { dir, model: path.join(dir, 'model.onnx'), data };
}

async function parseError(model: string): Promise<TsgeError> {
  const error = await parseModel(model).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(TsgeError.isInstance(error)).toBe(true);
  return error as TsgeError;
}

async function runAtc(model: string): Promise<{ code: number; err: string; output: string }> {
  let err = '';
  const output = path.join(path.dirname(model), 'out');
  const code = await atc([`--model=${model}`, `--output=${output}`, '--log=error'], { stdout: () => {}, stderr: (t) => (err += t) });
  return { code, err, output: `${output}.om` };
}

const image = Float32Array.from({ length: 784 }, (_, i) => ((i * 37) % 255) / 255);
async function classify(model: string): Promise<number[]> {
  const executor = await loadModel((await compileModel(await parseModel(model))).om, { threads: 1 });
  try {
    const out = await executor.run({ Input3: { type: 'float32', dims: [1, 1, 28, 28], data: image } });
    return [...((out[executor.outputNames[0] as string] as HostTensor).data as Float32Array)];
  } finally {
    await executor.release();
  }
}

describe('ONNX external data', () => {
  it('mnist with its weights in a side file gives the outputs of the embedded model', async () => {
    const { dir, model, data } = modelFolder();
    writeFileSync(path.join(dir, 'weights.bin'), data);
    expect(await classify(model)).toEqual(await classify(mnist));
  });

  it('reads only the ranges: tensors 3 GiB into a sparse side file (too large to read whole) load', async () => {
    const base = 3 * 2 ** 30;
    const { dir, model, data } = modelFolder('weights.bin', base);
    const file = path.join(dir, 'weights.bin');
    const fd = openSync(file, 'w');
    writeSync(fd, data, 0, data.length, base); // the 3 GiB before are a hole, not written
    closeSync(fd);
    expect(statSync(file).size).toBeGreaterThan(MAX_FILE_BYTES);
    expect(statSync(file).blocks * 512).toBeLessThan(64 * 1024 * 1024);
    expect(await classify(model)).toEqual(await classify(mnist));
  });

  it('a symlink to a file outside the folder is refused (TSGE-E3004), in parseModel and in atc', async () => {
    const secret = path.join(root, 'secret.bin');
    const { dir, model, data } = modelFolder('link.bin');
    writeFileSync(secret, data); // another file's bytes, of the right size
    symlinkSync(secret, path.join(dir, 'link.bin'));
    const error = await parseError(model);
    expect(error.code).toBe('TSGE-E3004');
    expect(error.message).toContain('link.bin');
    const r = await runAtc(model);
    expect(r.code).toBe(1);
    expect(r.err).toContain('TSGE-E3004');
    expect(existsSync(r.output)).toBe(false);
  });

  it('a symlink inside the folder, and a model reached through a symlinked folder, still load', async () => {
    const { dir, data } = modelFolder('link.bin');
    writeFileSync(path.join(dir, 'real.bin'), data);
    symlinkSync('real.bin', path.join(dir, 'link.bin'));
    const alias = path.join(root, `alias${folders}`);
    symlinkSync(dir, alias);
    expect(await classify(path.join(alias, 'model.onnx'))).toEqual(await classify(mnist));
  });

  it('a link to /dev/zero is refused without reading it', async () => {
    const { dir, model } = modelFolder();
    symlinkSync('/dev/zero', path.join(dir, 'weights.bin'));
    expect((await parseError(model)).code).toBe('TSGE-E3004');
  });

  it('a FIFO as the side file is refused at once (TSGE-E3050), never waited on', async () => {
    const { dir, model } = modelFolder();
    execFileSync('mkfifo', [path.join(dir, 'weights.bin')]);
    const error = await parseError(model);
    expect(error.code).toBe('TSGE-E3050');
    expect(error.message).toMatch(/weights\.bin.*not a regular file/);
    const r = await runAtc(model);
    expect(r.code).toBe(1);
    expect(r.err).toContain('TSGE-E3050');
  });

  it('a directory, a missing file and a side file shorter than the ranges are TSGE-E3050 naming the path', async () => {
    const asDir = modelFolder();
    mkdirSync(path.join(asDir.dir, 'weights.bin'));
    expect((await parseError(asDir.model)).message).toMatch(/weights\.bin.*directory/);
    const missing = modelFolder();
    expect((await parseError(missing.model)).message).toMatch(/weights\.bin.*no such file/);
    const short = modelFolder();
    writeFileSync(path.join(short.dir, 'weights.bin'), short.data.subarray(0, short.data.length - 100));
    const error = await parseError(short.model);
    expect(error.code).toBe('TSGE-E3050');
    expect(error.message).toMatch(/weights\.bin.*beyond the end of the file/);
  });
});

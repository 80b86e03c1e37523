import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { HostTensor } from '@tsge/metadef';
import { GraphBuilder, TsgeError, createTensorDesc } from '@tsge/metadef';
import { writeOm } from '@tsge/om';
import { afterAll, describe, expect, it } from 'vitest';
import { loadModel } from './load-model.js';
import { assembleModel } from './testing/assemble-model.fixture.js';
import { TEST_DOMAIN } from './testing/test-kernels.fixture.js';

const kernelModules = [new URL('./testing/test-kernels.fixture.ts', import.meta.url)];
const folder = mkdtempSync(path.join(tmpdir(), 'tsge-executor-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function omBytes(): Uint8Array {
  const b = new GraphBuilder('file-model');
  const desc = createTensorDesc('float32', [2, 2]);
  const x = b.input('x', 'float32', [2, 2]);
  const w = b.constant('w', new Float32Array([1, -2, 3, -4]), [2, 2]);
  const sum = b.op('Add', [x, w], { name: 'add', domain: TEST_DOMAIN, outputDescs: [desc] });
  b.output(b.op('Relu', [sum], { name: 'relu', domain: TEST_DOMAIN, outputDescs: [desc] }), 'y');
  const { header, ...model } = assembleModel(b.build());
  return writeOm({ ...model, modelName: header.modelName, target: 'js', flags: header.flags });
}

describe('loadModel', () => {
  it('loads .om bytes and a file path and runs them', async () => {
    const bytes = omBytes();
    const file = path.join(folder, 'model.om');
    writeFileSync(file, bytes);
    for (const source of [bytes, file]) {
      const executor = await loadModel(source, { kernelModules, threads: 2 });
      expect(executor.inputMetadata).toEqual([{ name: 'x', dtype: 'float32', shape: [2, 2] }]);
      expect(executor.outputNames).toEqual(['y']);
      const { y } = await executor.run({ x: { type: 'float32', dims: [2, 2], data: new Float32Array([1, 1, 1, 1]) } });
      expect(Array.from((y as HostTensor).data as Float32Array)).toEqual([2, 0, 4, 0]);
      await executor.release();
    }
  });

  it('rejects a damaged file with the reader diagnostics', async () => {
    const bytes = omBytes();
    bytes[bytes.length - 10] ^= 0xff;
    const error = await loadModel(bytes, { kernelModules }).catch((e: unknown) => e);
    expect(TsgeError.isInstance(error)).toBe(true);
    expect((error as TsgeError).code).toMatch(/^TSGE-E2/);
    const truncated = await loadModel(bytes.subarray(0, 100), { kernelModules }).catch((e: unknown) => e);
    expect((truncated as TsgeError).code).toMatch(/^TSGE-E2/);
  });

  it('reports a missing file with TSGE-E7003', async () => {
    const error = await loadModel(path.join(folder, 'absent.om')).catch((e: unknown) => e);
    expect((error as TsgeError).code).toBe('TSGE-E7003');
  });

  it('reports a directory and a FIFO as TSGE-E7050 naming the path, without waiting on the FIFO', async () => {
    const dir = (await loadModel(folder).catch((e: unknown) => e)) as TsgeError;
    expect(dir.code).toBe('TSGE-E7050');
    expect(dir.message).toContain(`cannot read ${folder}: it is a directory`);
    const fifo = path.join(folder, 'model.fifo');
    execFileSync('mkfifo', [fifo]);
    const error = (await loadModel(fifo).catch((e: unknown) => e)) as TsgeError;
    expect(error.code).toBe('TSGE-E7050');
    expect(error.message).toContain('not a regular file');
  });
});

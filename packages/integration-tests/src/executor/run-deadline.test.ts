// RunOptions.timeoutMs on a real model: ONNX's test_loop11 (a Loop whose trip count is an input),
// fed a trip count no run could finish, is stopped with TSGE-E6080; the same loaded model then
// runs the suite's own inputs and matches the suite's expected outputs.
import { readFileSync } from 'node:fs';
import { type Executor, loadModel } from '@tsge/executor';
import { compileModel, parseModel } from '@tsge/ge';
import type { HostTensor, TsgeError } from '@tsge/metadef';
import { decodeTensorProto } from '@tsge/parser-onnx';
import { afterEach, describe, expect, it } from 'vitest';

const DIR = new URL('../../../../../shared/testdata/onnx-backend/node/test_loop11/', import.meta.url);
const pb = (name: string): HostTensor => decodeTensorProto(new Uint8Array(readFileSync(new URL(`test_data_set_0/${name}`, DIR))));

const open: Executor[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.release()));
});

describe('run deadline on a real Loop model', () => {
  it('stops a loop of 1e15 trips and then runs the suite inputs correctly', async () => {
    const graph = await parseModel(new URL('model.onnx', DIR).pathname);
    const { om } = await compileModel(graph);
    const executor = await loadModel(om, { threads: 1 });
    open.push(executor);
    const [tripCount, cond, y] = [pb('input_0.pb'), pb('input_1.pb'), pb('input_2.pb')];
    const names = executor.inputNames;
    const feeds = (trips: HostTensor) => ({ [names[0] as string]: trips, [names[1] as string]: cond, [names[2] as string]: y });
    const endless: HostTensor = { type: 'int64', dims: [...tripCount.dims], data: new BigInt64Array([10n ** 15n]) };
    const error = (await executor.run(feeds(endless), { timeoutMs: 300 }).catch((e: unknown) => e)) as TsgeError;
    expect(error.code, String(error)).toBe('TSGE-E6080');
    expect(error.message).toMatch(/subgraph|before node/);
    const result = await executor.run(feeds(tripCount), { timeoutMs: 60_000 });
    const expected = [pb('output_0.pb'), pb('output_1.pb')];
    executor.outputNames.forEach((name, i) => {
      const got = result[name] as HostTensor;
      const want = expected[i] as HostTensor;
      expect(got.dims).toEqual(want.dims);
      expect(Array.from(got.data as Float32Array)).toEqual(Array.from(want.data as Float32Array));
    });
  });
});

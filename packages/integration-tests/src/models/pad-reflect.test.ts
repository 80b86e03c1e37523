// Pad in reflect mode mirrors an axis about its end elements, so a pad must be smaller than the
// axis; onnxruntime rejects the others, and so does tsge: at inference when the pads are constant,
// in the kernel when they arrive at run time (issue 11, item 9).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import { GraphBuilder, type HostTensor, TsgeError, attr } from '@tsge/metadef';
import { decodeTensorProto } from '@tsge/parser-onnx';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';

const dir = path.resolve(process.cwd(), '../shared/testdata/onnx-backend/node/test_reflect_pad');
const realPads = decodeTensorProto(readFileSync(path.join(dir, 'test_data_set_0/input_1.pb'))); // [0,0,1,1, 0,0,1,1]
const padsOf = (values: number[]): HostTensor => ({ type: 'int64', dims: [8], data: BigInt64Array.from(values.map(BigInt)) });
// the model's x is [1,3,4,5]: axis 0 has size 1
const dims = [1, 3, 4, 5];
const x: HostTensor = { type: 'int32', dims, data: Int32Array.from({ length: 60 }, (_, i) => i) };
type Result = { dims: readonly number[]; data: number[] };

async function onnxruntime(pads: HostTensor): Promise<Result | Error> {
  const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'));
  try {
    const out = await session.run({
      x: new ort.Tensor('int32', x.data as Int32Array, dims),
      pads: new ort.Tensor('int64', pads.data as BigInt64Array, pads.dims),
    });
    const y = out.y as ort.Tensor;
    return { dims: y.dims, data: [...(y.data as Int32Array)] };
  } catch (error) {
    return error as Error;
  } finally {
    await session.release();
  }
}

async function tsge(pads: HostTensor): Promise<Result | TsgeError> {
  const model = await loadModel((await compileModel(await parseModel(path.join(dir, 'model.onnx')))).om, { threads: 1 });
  try {
    const y = (await model.run({ x, pads })).y as HostTensor;
    return { dims: y.dims, data: [...(y.data as Int32Array)] };
  } catch (error) {
    if (!TsgeError.isInstance(error)) throw error;
    return error;
  } finally {
    await model.release();
  }
}

describe('Pad reflect', () => {
  it('agrees with onnxruntime where the pads fit the axes (up to size - 1)', async () => {
    for (const pads of [realPads, padsOf([0, 0, 3, 4, 0, 0, 3, 4])]) {
      const reference = await onnxruntime(pads);
      expect(reference).not.toBeInstanceOf(Error);
      expect(await tsge(pads)).toEqual(reference);
    }
  });

  it('rejects run-time pads on an axis shorter than 2, or as long as the axis, as onnxruntime does', async () => {
    for (const [pads, axis, size] of [
      [padsOf([1, 0, 0, 0, 0, 0, 0, 0]), 0, 1],
      [padsOf([0, 0, 0, 5, 0, 0, 0, 0]), 3, 5],
    ] as const) {
      expect(String(await onnxruntime(pads))).toMatch(/Pad reflect/);
      const error = await tsge(pads);
      expect(TsgeError.isInstance(error)).toBe(true);
      // the op's inference sees the run-time pads before the kernel does
      expect((error as TsgeError).code).toBe('TSGE-E4001');
      expect((error as TsgeError).message).toContain(`reflect cannot pad axis ${axis} of size ${size}`);
    }
  });

  it('rejects constant pads on an axis shorter than 2 at inference, naming the node', async () => {
    const b = new GraphBuilder('reflect');
    const input = b.input('x', 'float32', [1, 3, 1, 5]);
    const p = b.constant('pads', BigInt64Array.from([0n, 0n, 1n, 0n, 0n, 0n, 1n, 0n]), [8]);
    b.output(b.op('Pad', [input, p], { name: 'mirror', attrs: { mode: attr.string('reflect') } }), 'y');
    const error = await compileModel(b.build()).then(
      () => undefined,
      (e: unknown) => e as TsgeError,
    );
    expect(error?.code).toBe('TSGE-E4001');
    expect(error?.message).toMatch(/mirror.*axis 2 of size 1/);
  });
});

// What onnxruntime-common's Tensor cannot carry, through the drop-in: sequences as arrays of
// Tensors, absent optionals as null, tsge's TsgeTensorValue for bfloat16; and the coded refusal of
// the plain onnxruntime-common path. Models are ONNX's own node tests. onnxruntime-node refuses
// these values ("Non-tensor type is temporarily not supported"), so the expectations are the ops'
// definitions (Identity, OptionalHasElement, Cast to bfloat16 truncating exact values).
import path from 'node:path';
import * as common from 'onnxruntime-common';
import { describe, expect, it } from 'vitest';
import * as ort from './index.js';

const node = path.resolve(process.cwd(), '../shared/testdata/onnx-backend/node');
const model = (name: string) => path.join(node, name, 'model.onnx');
const code = (c: string) => (e: unknown) => ort.TsgeError.isInstance(e) && e.code === c;

describe('drop-in values beyond onnxruntime-common Tensors', () => {
  it('takes and returns sequences as arrays of Tensors', async () => {
    const session = await ort.InferenceSession.create(model('test_identity_sequence'), { intraOpNumThreads: 1 });
    try {
      expect(session.inputMetadata[0]).toMatchObject({ isTensor: false });
      const items = [new ort.Tensor('float32', [1, 2, 3, 4], [2, 2]), new ort.Tensor('float32', [5, 6], [1, 2])];
      const out = (await session.run({ [session.inputNames[0] as string]: items as never })) as Record<string, ort.DropInValue>;
      const seq = out[session.outputNames[0] as string] as ort.Tensor[];
      expect(Array.isArray(seq)).toBe(true);
      expect(seq.map((t) => t instanceof ort.Tensor)).toEqual([true, true]);
      expect(seq.map((t) => [t.dims, Array.from(t.data as Float32Array)])).toEqual([
        [
          [2, 2],
          [1, 2, 3, 4],
        ],
        [
          [1, 2],
          [5, 6],
        ],
      ]);
      await expect(session.run({ [session.inputNames[0] as string]: items[0] as ort.Tensor })).rejects.toSatisfy(code('TSGE-E8204'));
    } finally {
      await session.release();
    }
  });

  it('takes null for an absent optional', async () => {
    const session = await ort.InferenceSession.create(model('test_optional_has_element_empty_optional_input'), { intraOpNumThreads: 1 });
    try {
      const out = await session.run({ [session.inputNames[0] as string]: null as never });
      const has = out[session.outputNames[0] as string] as ort.Tensor;
      expect(has.type).toBe('bool');
      expect(Array.from(has.data as Uint8Array)).toEqual([0]);
    } finally {
      await session.release();
    }
  });

  it("returns bfloat16 as tsge's TsgeTensorValue (raw bits), and refuses non-tensors through plain onnxruntime-common", async () => {
    const file = model('test_cast_FLOAT_to_BFLOAT16');
    const session = await ort.InferenceSession.create(file, { intraOpNumThreads: 1 });
    const name = session.inputNames[0] as string;
    const dims = session.inputMetadata[0]?.isTensor
      ? session.inputMetadata[0].shape.map((d) => (typeof d === 'number' && d > 0 ? d : 1))
      : [1];
    const count = dims.reduce((a, b) => a * b, 1);
    // exactly representable in bfloat16: 1 → 0x3f80, -2 → 0xc000, 0.5 → 0x3f00
    const values = Array.from({ length: count }, (_, i) => [1, -2, 0.5][i % 3] as number);
    try {
      const out = (await session.run({ [name]: new ort.Tensor('float32', Float32Array.from(values), dims) })) as Record<
        string,
        ort.DropInValue
      >;
      const value = out[session.outputNames[0] as string] as ort.TsgeTensorValue;
      expect(value).toMatchObject({ type: 'bfloat16', dims, size: count, location: 'cpu' });
      expect(Array.from(value.data as Uint16Array)).toEqual(values.map((v) => ({ 1: 0x3f80, [-2]: 0xc000, 0.5: 0x3f00 })[v]));
    } finally {
      await session.release();
    }
    ort.registerTsgeBackend();
    const plain = await common.InferenceSession.create(file, { executionProviders: ['tsge'] });
    try {
      await expect(plain.run({ [name]: new common.Tensor('float32', Float32Array.from(values), dims) })).rejects.toSatisfy(
        (e: unknown) => code('TSGE-E8206')(e) && /bfloat16/.test((e as Error).message),
      );
    } finally {
      await plain.release();
    }
  });
});

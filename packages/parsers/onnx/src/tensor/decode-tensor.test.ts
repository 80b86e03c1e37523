import { TsgeError, constValueOf, float16ToNumber, numberToBfloat16, numberToFloat16 } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { decodeTensorProto, decodeValueProto, parseOnnx } from '../index.js';
import { onnx } from '../internal/proto.js';
import { DT, encodeTensor, node, value } from '../testing/build-model.js';

const bytesOf = (array: ArrayBufferView): Uint8Array => new Uint8Array(array.buffer, array.byteOffset, array.byteLength);

describe('decodeTensorProto', () => {
  it('reads float32 from raw_data at an odd offset and from float_data', () => {
    const raw = new Uint8Array(1 + 12);
    raw.set(bytesOf(Float32Array.of(1.5, -2, 3)), 1);
    const t = decodeTensorProto(encodeTensor({ dims: [3], dataType: DT.FLOAT, rawData: raw.subarray(1) }));
    expect(t.type).toBe('float32');
    expect([...(t.data as Float32Array)]).toEqual([1.5, -2, 3]);
    const typed = decodeTensorProto(encodeTensor({ dims: [1, 2], dataType: DT.FLOAT, floatData: [4, 5] }));
    expect(typed.dims).toEqual([1, 2]);
    expect([...(typed.data as Float32Array)]).toEqual([4, 5]);
  });

  it('keeps int64 precision (raw and int64_data)', () => {
    const raw = decodeTensorProto(
      encodeTensor({ dims: [2], dataType: DT.INT64, rawData: bytesOf(BigInt64Array.of(9223372036854775807n, -5n)) }),
    );
    expect([...(raw.data as BigInt64Array)]).toEqual([9223372036854775807n, -5n]);
    const fields = onnx.TensorProto.encode({ dims: [2], dataType: DT.INT64, int64Data: [-1, 7] }).finish();
    expect([...(decodeTensorProto(fields).data as BigInt64Array)]).toEqual([-1n, 7n]);
  });

  it('stores float16 and bfloat16 as raw bits, from raw_data and int32_data', () => {
    const bits = Uint16Array.of(numberToFloat16(1.5), numberToFloat16(-0.25));
    const t = decodeTensorProto(encodeTensor({ dims: [2], dataType: DT.FLOAT16, rawData: bytesOf(bits) }));
    expect(t.type).toBe('float16');
    expect([...(t.data as Uint16Array)].map(float16ToNumber)).toEqual([1.5, -0.25]);
    const b = decodeTensorProto(encodeTensor({ dims: [1], dataType: DT.BFLOAT16, int32Data: [numberToBfloat16(2)] }));
    expect(b.data[0]).toBe(numberToBfloat16(2));
  });

  it('unpacks int4 (sign-extended) and uint4, low nibble first', () => {
    const i4 = decodeTensorProto(encodeTensor({ dims: [3], dataType: DT.INT4, rawData: Uint8Array.of(0xf7, 0x08) }));
    expect([...(i4.data as Int8Array)]).toEqual([7, -1, -8]);
    const u4 = decodeTensorProto(encodeTensor({ dims: [3], dataType: DT.UINT4, int32Data: [0xf7, 0x08] }));
    expect([...(u4.data as Uint8Array)]).toEqual([7, 15, 8]);
  });

  it('reads strings, bools, doubles and complex', () => {
    const s = decodeTensorProto(
      encodeTensor({ dims: [2], dataType: DT.STRING, stringData: [new TextEncoder().encode('héllo'), new Uint8Array()] }),
    );
    expect(s.data).toEqual(['héllo', '']);
    const bools = decodeTensorProto(encodeTensor({ dims: [3], dataType: DT.BOOL, rawData: Uint8Array.of(0, 1, 2) }));
    expect([...(bools.data as Uint8Array)]).toEqual([0, 1, 1]);
    const d = decodeTensorProto(encodeTensor({ dims: [], dataType: DT.DOUBLE, doubleData: [Math.PI] }));
    expect(d.dims).toEqual([]);
    expect(d.data[0]).toBe(Math.PI);
    const c = decodeTensorProto(encodeTensor({ dims: [1], dataType: 14, floatData: [1, -1] }));
    expect(c.type).toBe('complex64');
    expect([...(c.data as Float32Array)]).toEqual([1, -1]);
  });

  it('reports size mismatches, huge dims and unknown types as TsgeError diagnostics', () => {
    const bad = [
      encodeTensor({ dims: [4], dataType: DT.FLOAT, rawData: new Uint8Array(12) }),
      encodeTensor({ dims: [4], dataType: DT.FLOAT, floatData: [1] }),
      encodeTensor({ dims: [1e6, 1e6], dataType: DT.FLOAT, rawData: new Uint8Array(4) }),
      encodeTensor({ dims: [-1], dataType: DT.FLOAT }),
      encodeTensor({ dims: [1], dataType: 99, rawData: new Uint8Array(4) }),
      Uint8Array.of(0x0a, 0xff, 0xff, 0xff, 0x0f),
    ];
    for (const bytes of bad) {
      let caught: unknown;
      try {
        decodeTensorProto(bytes);
      } catch (error) {
        caught = error;
      }
      expect(TsgeError.isInstance(caught)).toBe(true);
      expect((caught as TsgeError).code).toBe('TSGE-E3003');
    }
  });
});

describe('decodeValueProto', () => {
  it('reads sequences and optionals, guided by the expected kind', () => {
    const seq = onnx.SequenceProto.encode({
      name: 's',
      elemType: 1,
      tensorValues: [
        { dims: [1], dataType: DT.FLOAT, floatData: [1] },
        { dims: [2], dataType: DT.FLOAT, floatData: [2, 3] },
      ],
    }).finish();
    const value = decodeValueProto(seq, 'sequence');
    expect(value).toMatchObject({ kind: 'sequence', elementType: 'float32' });
    expect(decodeValueProto(seq)).toMatchObject({ kind: 'sequence' });
    const opt = onnx.OptionalProto.encode({
      name: 'o',
      elemType: 1,
      tensorValue: { dims: [1], dataType: DT.INT32, int32Data: [4] },
    }).finish();
    const o = decodeValueProto(opt, 'optional');
    expect(o).toMatchObject({ kind: 'optional', value: { type: 'int32', dims: [1] } });
    const empty = onnx.OptionalProto.encode({ name: 'o', elemType: 0 }).finish();
    expect(decodeValueProto(empty, 'optional')).toEqual({ kind: 'optional', value: undefined });
    const tensor = encodeTensor({ name: 'x', dims: [1], dataType: DT.FLOAT, rawData: bytesOf(Float32Array.of(8)) });
    expect(decodeValueProto(tensor)).toMatchObject({ type: 'float32', dims: [1] });
  });

  it('rejects maps with a diagnostic', () => {
    const map = onnx.MapProto.encode({ name: 'm', keyType: 7, keys: [1] }).finish();
    expect(() => decodeValueProto(map, 'map')).toThrow(/MapProto/);
  });
});

describe('sparse initializers', () => {
  it('densifies linear and coordinate indices and caps the dense size', async () => {
    const sparse = (dims: number[], indices: { dims: number[]; values: number[] }) => ({
      values: { name: 's', dims: [2], dataType: DT.FLOAT, floatData: [5, 6] },
      indices: { dims: indices.dims, dataType: DT.INT64, int64Data: indices.values },
      dims,
    });
    const parse = async (s: ReturnType<typeof sparse>) => {
      const bytes = onnx.ModelProto.encode({
        irVersion: 10,
        opsetImport: [{ domain: '', version: 21 }],
        graph: { name: 'g', node: [node('Identity', ['s'], ['y'])], input: [], output: [value('y')], sparseInitializer: [s] },
      }).finish();
      return parseOnnx({ bytes });
    };
    const linear = await parse(sparse([2, 3], { dims: [2], values: [1, 5] }));
    const dense = (r: Awaited<ReturnType<typeof parse>>): number[] => {
      const t = constValueOf(r.graph?.findNode('s'));
      return t ? [...(t.data as Float32Array)] : [];
    };
    expect(dense(linear)).toEqual([0, 5, 0, 0, 0, 6]);
    const coords = await parse(sparse([2, 3], { dims: [2, 2], values: [0, 2, 1, 0] }));
    expect(dense(coords)).toEqual([0, 0, 5, 6, 0, 0]);
    const outOfRange = await parse(sparse([2, 3], { dims: [2], values: [1, 6] }));
    expect(outOfRange.diagnostics[0]?.code).toBe('TSGE-E3003');
    const huge = await parse(sparse([1 << 28, 2], { dims: [2], values: [0, 1] }));
    expect(huge.diagnostics[0]?.message).toMatch(/densifies/);
  });
});

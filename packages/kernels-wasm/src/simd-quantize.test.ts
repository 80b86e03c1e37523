import { type KernelV1, attr, createTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { hasWasmSimd } from './kernel-modules.js';
import { simdQuantizeKernels } from './simd-quantize.js';
import { bytes, counted, fallbacks, referenceOf, run, seeded } from './simd-int-test-support.fixture.js';
import { wasmMemory } from './simd-test-support.fixture.js';

const [dequantize, quantize, quantizedAdd] = simdQuantizeKernels(counted) as [KernelV1, KernelV1, KernelV1];

describe.skipIf(!hasWasmSimd())('SIMD QuantizeLinear / DequantizeLinear equal the reference', () => {
  for (const dtype of ['uint8', 'int8'] as const) {
    const zpValue = dtype === 'uint8' ? 131 : -3;
    const zp = createTensor(dtype, [], dtype === 'uint8' ? Uint8Array.of(zpValue) : Int8Array.of(zpValue));
    const scale = createTensor('float32', [], Float32Array.of(0.0235294122248888));

    it(`DequantizeLinear ${dtype} (every byte value, a length not a multiple of 16)`, () => {
      const n = 16 * 19 + 7;
      const x = createTensor(dtype, [n]);
      for (let i = 0; i < n; i++) (x.data as Uint8Array)[i] = (i * 37) & 255;
      const expected = run(referenceOf('DequantizeLinear'), [x, scale, zp], {});
      const before = fallbacks.count;
      const got = run(dequantize, [x, scale, zp], {}, wasmMemory(false, 64));
      expect(fallbacks.count).toBe(before);
      expect(Array.from(got.data as Float32Array)).toEqual(Array.from(expected.data as Float32Array));
    });

    it(`QuantizeLinear to ${dtype} (ties, saturation, infinities, NaN)`, () => {
      const rnd = seeded(3);
      const s = scale.data[0] as number;
      const values: number[] = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 1e30, -1e30];
      for (let k = -140; k <= 140; k++) values.push((k + 0.5) * s, k * s, Math.fround((k + 0.5) * s) * (1 + 2 ** -23));
      while (values.length % 16 !== 5) values.push((rnd() - 0.5) * 8);
      const x = createTensor('float32', [values.length], Float32Array.from(values));
      const expected = run(referenceOf('QuantizeLinear'), [x, scale, zp], {});
      const before = fallbacks.count;
      const got = run(quantize, [x, scale, zp], {}, wasmMemory(false, 64));
      expect(fallbacks.count).toBe(before);
      expect(got.type).toBe(dtype);
      expect(Array.from(got.data as Uint8Array)).toEqual(Array.from(expected.data as Uint8Array));
    });
  }
});

describe.skipIf(!hasWasmSimd())('SIMD tsge::QuantizedAdd equals the reference', () => {
  // XNNPACK's parameters of a MobileNetV2 residual add (shift 21), and a case whose sums saturate
  const params = [
    { a_multiplier: 1948293, b_multiplier: 1338520, shift: 21, zero_point: 133, signedZero: 5 },
    { a_multiplier: 2097152, b_multiplier: -1048576, shift: 13, zero_point: 7, signedZero: -100 },
  ];
  for (const dtype of ['uint8', 'int8'] as const)
    for (const [k, p] of params.entries()) {
      it(`${dtype}, parameters ${k} (a length not a multiple of 16)`, () => {
        const n = 16 * 23 + 11;
        const a = bytes(dtype, [1, n], 5 + k);
        const b = bytes(dtype, [1, n], 9 + k);
        const [za, zb] = dtype === 'uint8' ? [136, 119] : [8, -9];
        const bias = 2 ** (p.shift - 1) - p.a_multiplier * za - p.b_multiplier * zb;
        const attrs = {
          a_multiplier: attr.int(p.a_multiplier),
          b_multiplier: attr.int(p.b_multiplier),
          bias: attr.int(bias),
          shift: attr.int(p.shift),
          zero_point: attr.int(dtype === 'uint8' ? p.zero_point : p.signedZero),
        };
        const expected = run(referenceOf('QuantizedAdd'), [a, b], attrs);
        const before = fallbacks.count;
        const got = run(quantizedAdd, [a, b], attrs, wasmMemory(false, 64));
        expect(fallbacks.count).toBe(before);
        expect(got.type).toBe(dtype);
        expect(Array.from(got.data as Uint8Array)).toEqual(Array.from(expected.data as Uint8Array));
        // the saturating case reaches both ends of the range
        if (k === 1) {
          const values = new Set(got.data as Uint8Array);
          for (const end of dtype === 'uint8' ? [0, 255] : [-128, 127]) expect(values.has(end)).toBe(true);
        }
      });
    }
});

import { type HostTensor, type KernelContextV1, type KernelV1, type LinearMemory, createAttrReader, createTensor } from '@tsge/metadef';
import { nnKernels } from '@tsge/kernels-js/kernel-support';
import { describe, expect, it } from 'vitest';
import { hasWasmSimd } from './kernel-modules.js';
import { simdQuantizeKernels } from './simd-quantize.js';
import { wasmMemory } from './simd-test-support.fixture.js';

const referenceOf = (opType: string): KernelV1 => {
  const k = nnKernels.find((x) => x.opType === opType && x.name === 'reference');
  if (!k) throw new Error(`no reference ${opType}`);
  return k;
};
/** Calls of the reference through the SIMD kernels: the SIMD paths must not fall back here. */
let fallbacks = 0;
const counted = (opType: string): KernelV1 => ({
  ...referenceOf(opType),
  compute: (ctx) => (fallbacks++, referenceOf(opType).compute(ctx)),
});
const [dequantize, quantize] = simdQuantizeKernels(counted) as [KernelV1, KernelV1];

/** Runs a kernel on inputs copied into `memory` (or on host arrays) and returns its output. */
function run(kernel: KernelV1, inputs: readonly HostTensor[], memory?: LinearMemory): HostTensor {
  let offset = 128;
  const place = (t: HostTensor): HostTensor => {
    if (!memory) return t;
    const Ctor = t.data.constructor as new (b: ArrayBufferLike, o: number, n: number) => Uint8Array;
    const data = new Ctor(memory.buffer, offset, t.data.length);
    data.set(t.data as Uint8Array);
    offset += Math.ceil(((t.data as Uint8Array).byteLength + 1) / 64) * 64;
    return { type: t.type, dims: [...t.dims], data } as HostTensor;
  };
  const tensors = inputs.map(place);
  let result: HostTensor | undefined;
  const ctx: KernelContextV1 = {
    nodeName: 'q',
    opType: kernel.opType,
    attrs: createAttrReader(new Map()),
    inputCount: tensors.length,
    outputCount: 1,
    opsetVersion: 21,
    ...(memory ? { memory } : {}),
    input: (i) => tensors[i],
    tensor: (i) => tensors[i],
    output: (_i, dims, dtype) => {
      result = place(createTensor(dtype, dims));
      (result.data as Uint8Array).fill(0x7f);
      return result;
    },
    setOutput: () => {},
    runSubgraph: () => [],
  };
  kernel.compute(ctx);
  if (!result) throw new Error('no output');
  return { ...result, data: (result.data as Uint8Array).slice() } as HostTensor;
}

function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

describe.skipIf(!hasWasmSimd())('SIMD QuantizeLinear / DequantizeLinear equal the reference', () => {
  for (const dtype of ['uint8', 'int8'] as const) {
    const zpValue = dtype === 'uint8' ? 131 : -3;
    const zp = createTensor(dtype, [], dtype === 'uint8' ? Uint8Array.of(zpValue) : Int8Array.of(zpValue));
    const scale = createTensor('float32', [], Float32Array.of(0.0235294122248888));

    it(`DequantizeLinear ${dtype} (every byte value, a length not a multiple of 16)`, () => {
      const n = 16 * 19 + 7;
      const x = createTensor(dtype, [n]);
      for (let i = 0; i < n; i++) (x.data as Uint8Array)[i] = (i * 37) & 255;
      const expected = run(referenceOf('DequantizeLinear'), [x, scale, zp]);
      const before = fallbacks;
      const got = run(dequantize, [x, scale, zp], wasmMemory(false, 4));
      expect(fallbacks).toBe(before);
      expect(Array.from(got.data as Float32Array)).toEqual(Array.from(expected.data as Float32Array));
    });

    it(`QuantizeLinear to ${dtype} (ties, saturation, infinities, NaN)`, () => {
      const rnd = seeded(3);
      const s = scale.data[0] as number;
      const values: number[] = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 1e30, -1e30];
      for (let k = -140; k <= 140; k++) values.push((k + 0.5) * s, k * s, Math.fround((k + 0.5) * s) * (1 + 2 ** -23));
      while (values.length % 16 !== 5) values.push((rnd() - 0.5) * 8);
      const x = createTensor('float32', [values.length], Float32Array.from(values));
      const expected = run(referenceOf('QuantizeLinear'), [x, scale, zp]);
      const before = fallbacks;
      const got = run(quantize, [x, scale, zp], wasmMemory(false, 4));
      expect(fallbacks).toBe(before);
      expect(got.type).toBe(dtype);
      expect(Array.from(got.data as Uint8Array)).toEqual(Array.from(expected.data as Uint8Array));
    });
  }
});

import {
  type AttrValue,
  type DataType,
  type HostTensor,
  type KernelContextV1,
  type KernelV1,
  type LinearMemory,
  TSGE_DOMAIN,
  attr,
  createAttrReader,
  createTensor,
} from '@tsge/metadef';
import { nnKernels } from '@tsge/kernels-js/kernel-support';
import { describe, expect, it } from 'vitest';
import { hasWasmSimd } from './kernel-modules.js';
import { simdIntConvKernels } from './simd-int-conv.js';
import { runTile, wasmMemory } from './simd-test-support.fixture.js';

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
const [convInteger, requantizedConv] = simdIntConvKernels(counted);

function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

/** A tensor of `dtype` whose values come from `value(i)`. */
function tensorOf(dtype: DataType, dims: readonly number[], value: (i: number) => number): HostTensor {
  const t = createTensor(dtype, dims);
  for (let i = 0; i < t.data.length; i++) (t.data as Float32Array)[i] = value(i);
  return t;
}

/** Random bytes of a type, a share of them at the type's extremes. */
function bytes(dtype: 'uint8' | 'int8', dims: readonly number[], seed: number): HostTensor {
  const rnd = seeded(seed);
  const [lo, hi] = dtype === 'uint8' ? [0, 255] : [-128, 127];
  return tensorOf(dtype, dims, () => {
    const r = rnd();
    if (r < 0.05) return lo;
    if (r > 0.95) return hi;
    return lo + Math.floor(rnd() * (hi - lo + 1));
  });
}

/** Copies tensors into device memory (the executor's placement) and back. */
function place(memory: LinearMemory, tensors: readonly (HostTensor | undefined)[]): (HostTensor | undefined)[] {
  let offset = 64;
  return tensors.map((t) => {
    if (!t) return undefined;
    const Ctor = t.data.constructor as new (b: ArrayBufferLike, o: number, n: number) => HostTensor['data'];
    const data = new Ctor(memory.buffer, offset, t.data.length);
    (data as Uint8Array).set(t.data as Uint8Array);
    offset += Math.ceil(((t.data as Uint8Array).byteLength + 16) / 64) * 64;
    return { type: t.type, dims: [...t.dims], data };
  });
}

function run(
  kernel: KernelV1,
  inputs: readonly (HostTensor | undefined)[],
  attrs: Record<string, AttrValue>,
  memory?: LinearMemory,
  threads?: number,
): HostTensor {
  const tensors = memory ? place(memory, inputs) : [...inputs];
  let outOffset = memory ? 32 * 65536 : 0;
  let result: HostTensor | undefined;
  const ctx: KernelContextV1 = {
    nodeName: 'node',
    opType: kernel.opType,
    attrs: createAttrReader(new Map(Object.entries(attrs))),
    inputCount: tensors.length,
    outputCount: 1,
    opsetVersion: 21,
    ...(memory ? { memory } : {}),
    ...(memory && threads
      ? {
          parallel: {
            threads,
            run: (name: string, tiles: readonly (readonly number[])[]) => {
              for (const t of [...tiles].reverse()) runTile(memory, name, t);
            },
          },
        }
      : {}),
    input: (i) => tensors[i],
    tensor: (i) => tensors[i],
    output: (_i, dims, dtype) => {
      const t = createTensor(dtype, dims);
      if (memory) {
        const Ctor = t.data.constructor as new (b: ArrayBufferLike, o: number, n: number) => HostTensor['data'];
        const data = new Ctor(memory.buffer, outOffset, t.data.length);
        (data as Uint8Array).fill(0x5a);
        outOffset += Math.ceil((t.data as Uint8Array).byteLength / 64) * 64 + 64;
        result = { type: dtype, dims: [...dims], data };
      } else result = t;
      return result;
    },
    setOutput: () => {},
    runSubgraph: () => [],
  };
  kernel.compute(ctx);
  if (!result) throw new Error('no output');
  return { type: result.type, dims: [...result.dims], data: (result.data as Uint8Array).slice() } as HostTensor;
}

interface Case {
  name: string;
  x: number[];
  w: number[];
  attrs: Record<string, AttrValue>;
  xType?: 'uint8' | 'int8';
  wType?: 'uint8' | 'int8';
  yType?: 'uint8' | 'int8';
  perChannel?: boolean;
  bias?: boolean;
  clip?: [number, number];
}

const cases: Case[] = [
  { name: 'pointwise uint8, per-tensor', x: [1, 16, 7, 9], w: [24, 16, 1, 1], attrs: {} },
  {
    name: 'pointwise odd K, M % 4, int8 weights per channel',
    x: [2, 13, 5, 5],
    w: [11, 13, 1, 1],
    attrs: {},
    wType: 'int8',
    perChannel: true,
  },
  {
    name: 'pointwise int8 everything',
    x: [1, 32, 3, 3],
    w: [10, 32, 1, 1],
    attrs: {},
    xType: 'int8',
    wType: 'int8',
    yType: 'int8',
    perChannel: true,
  },
  {
    name: '3×3 stride 2 pad 1 (first layer)',
    x: [1, 3, 17, 15],
    w: [8, 3, 3, 3],
    attrs: { strides: attr.ints([2, 2]), pads: attr.ints([1, 1, 1, 1]) },
  },
  { name: 'grouped 3×3', x: [1, 8, 6, 7], w: [6, 4, 3, 3], attrs: { group: attr.int(2), pads: attr.ints([1, 0, 1, 2]) }, perChannel: true },
  { name: 'dilated', x: [1, 4, 11, 10], w: [5, 4, 3, 3], attrs: { dilations: attr.ints([2, 2]) }, wType: 'int8' },
  { name: 'fully connected as 1×1 on 1×1', x: [1, 70, 1, 1], w: [37, 70, 1, 1], attrs: {}, perChannel: true },
  {
    name: 'depthwise 3×3 pad 1',
    x: [2, 6, 9, 13],
    w: [6, 1, 3, 3],
    attrs: { group: attr.int(6), pads: attr.ints([1, 1, 1, 1]) },
    perChannel: true,
  },
  {
    name: 'depthwise 3×3 stride 2 (TFLite SAME)',
    x: [1, 5, 16, 17],
    w: [5, 1, 3, 3],
    attrs: { group: attr.int(5), strides: attr.ints([2, 2]), pads: attr.ints([0, 0, 1, 1]) },
  },
  {
    name: 'depthwise 5×5 int8, stride 2 dilation 1×2',
    x: [1, 3, 12, 21],
    w: [3, 1, 5, 5],
    attrs: { group: attr.int(3), strides: attr.ints([2, 2]), dilations: attr.ints([1, 2]), pads: attr.ints([2, 3, 1, 0]) },
    xType: 'int8',
    wType: 'int8',
    yType: 'int8',
  },
  { name: 'clipped (Relu6 range), no bias', x: [1, 9, 6, 6], w: [7, 9, 1, 1], attrs: {}, bias: false, clip: [3, 200] },
];

function inputsOf(c: Case, seed: number) {
  const xType = c.xType ?? 'uint8';
  const wType = c.wType ?? 'uint8';
  const yType = c.yType ?? 'uint8';
  const channels = c.w[0] as number;
  const rnd = seeded(seed + 99);
  const x = bytes(xType, c.x, seed);
  const w = bytes(wType, c.w, seed + 1);
  const xz = tensorOf(xType, [], () => (xType === 'uint8' ? 128 + Math.floor(rnd() * 20) : Math.floor(rnd() * 9) - 4));
  const wz = tensorOf(wType, c.perChannel ? [channels] : [], () =>
    wType === 'uint8' ? 100 + Math.floor(rnd() * 50) : c.perChannel ? 0 : Math.floor(rnd() * 5) - 2,
  );
  const bias = c.bias === false ? undefined : tensorOf('int32', [1, channels, 1, 1], () => Math.floor((rnd() - 0.5) * 40000));
  // scales that put the output across its range, some per channel
  const depth = c.w.slice(1).reduce((p, d) => p * d, 1);
  const scale = tensorOf('float32', c.perChannel ? [1, channels, 1, 1] : [], () => ((0.5 + rnd()) * 0.0125) / Math.sqrt(depth));
  const yz = tensorOf(yType, [], () => (yType === 'uint8' ? 120 + Math.floor(rnd() * 10) : Math.floor(rnd() * 9) - 4));
  const clip = c.clip ? c.clip.map((v) => tensorOf(yType, [], () => v)) : [undefined, undefined];
  return { conv: [x, w, xz, wz], requant: [x, w, xz, wz, bias, scale, yz, ...clip] };
}

describe.skipIf(!hasWasmSimd())('integer convolution SIMD kernels equal the reference', () => {
  for (const c of cases) {
    for (const threads of [undefined, 3]) {
      it(`${c.name}${threads ? ', tiles over 3 threads' : ''}`, () => {
        const memory = wasmMemory(false, 64);
        const { conv, requant } = inputsOf(c, c.name.length * 7 + 3);
        const expectedInt = run(referenceOf('ConvInteger'), conv, c.attrs);
        const before = fallbacks;
        const gotInt = run(convInteger as KernelV1, conv, c.attrs, memory, threads);
        expect(gotInt.dims).toEqual(expectedInt.dims);
        expect(Array.from(gotInt.data as Int32Array)).toEqual(Array.from(expectedInt.data as Int32Array));
        const expected = run(referenceOf('RequantizedConv'), requant, c.attrs);
        const got = run(requantizedConv as KernelV1, requant, c.attrs, memory, threads);
        expect(fallbacks, 'SIMD path taken').toBe(before);
        expect(got.type).toBe(expected.type);
        expect(Array.from(got.data as Uint8Array)).toEqual(Array.from(expected.data as Uint8Array));
        // the outputs are not all saturated: the test sees the requantization
        const values = new Set(Array.from(got.data as Uint8Array));
        expect(values.size).toBeGreaterThan(10);
      });
    }
  }

  it('falls back to the reference outside device memory', () => {
    const c = cases[0] as Case;
    const { requant } = inputsOf(c, 5);
    const expected = run(referenceOf('RequantizedConv'), requant, c.attrs);
    const before = fallbacks;
    expect(Array.from(run(requantizedConv as KernelV1, requant, c.attrs).data as Uint8Array)).toEqual(
      Array.from(expected.data as Uint8Array),
    );
    expect(fallbacks).toBe(before + 1);
    expect(requantizedConv?.domain).toBe(TSGE_DOMAIN);
  });
});

// Test helpers for the integer kernels: tensors of any dtype placed in device memory, run by a
// SIMD kernel whose reference calls are counted (a SIMD path that falls back fails its test).
import {
  type AttrValue,
  type DataType,
  type HostTensor,
  type KernelContextV1,
  type KernelV1,
  type LinearMemory,
  createAttrReader,
  TsgeError,
  createTensor,
} from '@tsge/metadef';
import { mathKernels, nnKernels } from '@tsge/kernels-js/kernel-support';
import { expect } from 'vitest';
import { runTile, wasmMemory } from './simd-test-support.fixture.js';

export const referenceOf = (opType: string): KernelV1 => {
  const k = [...nnKernels, ...mathKernels].find((x) => x.opType === opType && x.name === 'reference');
  if (!k) throw new Error(`no reference ${opType}`);
  return k;
};
/** Calls of the reference through the SIMD kernels: the SIMD paths must not fall back here. */
export const fallbacks = { count: 0 };
export const counted = (opType: string): KernelV1 => ({
  ...referenceOf(opType),
  compute: (ctx) => {
    fallbacks.count++;
    referenceOf(opType).compute(ctx);
  },
});

export function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

/** A tensor of `dtype` whose values come from `value(i)`. */
export function tensorOf(dtype: DataType, dims: readonly number[], value: (i: number) => number): HostTensor {
  const t = createTensor(dtype, dims);
  for (let i = 0; i < t.data.length; i++) (t.data as Float32Array)[i] = value(i);
  return t;
}

/** Random bytes of a type, a share of them at the type's extremes. */
export function bytes(dtype: 'uint8' | 'int8', dims: readonly number[], seed: number): HostTensor {
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

export function run(
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

/** Each bad node fails on the reference and on the SIMD kernel with TSGE-E4003 naming the node. */
export function expectCodedFailures(
  reference: KernelV1,
  simd: KernelV1,
  bad: readonly (readonly [(HostTensor | undefined)[], Record<string, AttrValue>])[],
): void {
  for (const [inputs, attrs] of bad)
    for (const [kernel, memory] of [
      [reference, undefined],
      [simd, wasmMemory(false, 64)],
    ] as const) {
      let error: unknown;
      try {
        run(kernel, inputs, attrs, memory);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TsgeError);
      expect((error as TsgeError).code).toBe('TSGE-E4003');
      expect((error as TsgeError).message).toContain('node');
    }
}

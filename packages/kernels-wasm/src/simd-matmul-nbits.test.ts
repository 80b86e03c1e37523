import {
  type AttrValue,
  type HostTensor,
  type KernelContextV1,
  type LinearMemory,
  attr,
  createAttrReader,
  createTensor,
} from '@tsge/metadef';
import { nnKernels } from '@tsge/kernels-js/kernel-support';
import { describe, expect, it } from 'vitest';
import { hasWasmSimd } from './kernel-modules.js';
import { simdMatMulNBitsKernel } from './simd-matmul-nbits.js';
import { maxRelativeError, random, runTile, wasmMemory } from './simd-test-support.fixture.js';

const reference = nnKernels.find((k) => k.opType === 'MatMulNBits' && k.name === 'reference');
if (!reference) throw new Error('no reference MatMulNBits');
// counts the calls that fell back, so a test knows which path ran
let fallbacks = 0;
const simd = simdMatMulNBitsKernel({
  ...reference,
  compute: (ctx) => {
    fallbacks++;
    reference.compute(ctx);
  },
});

interface Case {
  M: number;
  K: number;
  N: number;
  blockSize: number;
  zeroPoints?: boolean;
  bias?: boolean;
  threads?: number;
  bits?: number;
}

/** Runs a MatMulNBits kernel with its tensors in `memory` (or host memory) and returns Y. */
function run(kernel: typeof simd, c: Case, memory: LinearMemory | undefined): Float32Array {
  const rnd = random(c.K * 7 + c.N);
  const bits = c.bits ?? 4;
  const blocks = Math.ceil(c.K / c.blockSize);
  let offset = 64;
  const place = <T extends Float32Array | Uint8Array>(
    make: (buffer: ArrayBufferLike, at: number, n: number) => T,
    n: number,
    bytes: number,
  ): T => {
    if (!memory) return make(new ArrayBuffer(n * bytes), 0, n);
    const view = make(memory.buffer, offset, n);
    offset += Math.ceil((n * bytes + 4) / 64) * 64 + 4;
    return view;
  };
  const floats = (dims: number[], values: (i: number) => number): HostTensor => {
    const n = dims.reduce((p, d) => p * d, 1);
    const data = place((b, at, len) => new Float32Array(b, at, len), n, 4);
    for (let i = 0; i < n; i++) data[i] = values(i);
    return { type: 'float32', dims, data };
  };
  const bytes = (dims: number[]): HostTensor => {
    const n = dims.reduce((p, d) => p * d, 1);
    const data = place((b, at, len) => new Uint8Array(b, at, len), n, 1);
    for (let i = 0; i < n; i++) data[i] = Math.floor(Math.abs(rnd()) * 64) % 256;
    return { type: 'uint8', dims, data };
  };
  const inputs: (HostTensor | undefined)[] = [
    floats([c.M, c.K], () => rnd() / 4),
    bytes([c.N, blocks, (c.blockSize * bits) / 8]),
    floats([c.N * blocks], () => 0.01 + Math.abs(rnd()) / 40),
    c.zeroPoints ? bytes([c.N * Math.ceil((blocks * bits) / 8)]) : undefined,
    undefined,
    c.bias ? floats([c.N], () => rnd()) : undefined,
  ];
  let out: HostTensor | undefined;
  const attrs = new Map<string, AttrValue>([
    ['K', attr.int(c.K)],
    ['N', attr.int(c.N)],
    ['block_size', attr.int(c.blockSize)],
    ['bits', attr.int(bits)],
  ]);
  const ctx: KernelContextV1 = {
    nodeName: 'nbits',
    opType: 'MatMulNBits',
    attrs: createAttrReader(attrs),
    inputCount: inputs.length,
    outputCount: 1,
    opsetVersion: 1,
    ...(memory ? { memory } : {}),
    ...(memory && c.threads
      ? {
          parallel: {
            threads: c.threads,
            run: (name: string, tiles: readonly (readonly number[])[]) => {
              for (const t of tiles) runTile(memory, name, t);
            },
          },
        }
      : {}),
    input: (i) => inputs[i],
    tensor: (i) => inputs[i],
    output: (_i, dims, dtype) => {
      out = memory
        ? {
            type: dtype,
            dims: [...dims],
            data: place(
              (b, at, n) => new Float32Array(b, at, n).fill(Number.NaN),
              dims.reduce((p, d) => p * d, 1),
              4,
            ),
          }
        : createTensor(dtype, dims);
      return out;
    },
    setOutput: () => {},
    runSubgraph: () => [],
  };
  kernel.compute(ctx);
  if (!out) throw new Error('no output');
  return Float32Array.from(out.data as Float32Array);
}

describe.skipIf(!hasWasmSimd())('MatMulNBits 4-bit SIMD kernel (blocks dequantized on the fly)', () => {
  const cases: Case[] = [
    { M: 1, K: 64, N: 13, blockSize: 32 },
    { M: 3, K: 96, N: 9, blockSize: 32, zeroPoints: true, bias: true },
    { M: 2, K: 100, N: 7, blockSize: 64, zeroPoints: true },
    { M: 5, K: 256, N: 40, blockSize: 128, bias: true, threads: 3 },
    // prefill-shaped: passes of four rows (two here, then one row), four columns and single ones
    { M: 9, K: 96, N: 11, blockSize: 32, zeroPoints: true, bias: true },
    { M: 8, K: 128, N: 16, blockSize: 64, threads: 2 },
  ];
  for (const c of cases)
    it(`M ${c.M} K ${c.K} N ${c.N} block ${c.blockSize}${c.zeroPoints ? ' zero points' : ''}${c.bias ? ' bias' : ''}`, () => {
      const want = run(reference, c, undefined);
      fallbacks = 0;
      const got = run(simd, c, wasmMemory(false));
      expect(fallbacks).toBe(0);
      expect(got.some((v) => Number.isNaN(v))).toBe(false);
      expect(maxRelativeError(got, want)).toBeLessThan(1e-5);
    });

  it('leaves 8-bit weights, block size 16 and host memory to the reference kernel', () => {
    for (const c of [
      { M: 2, K: 64, N: 5, blockSize: 32, bits: 8 },
      { M: 2, K: 64, N: 5, blockSize: 16 },
    ]) {
      const want = run(reference, c, undefined);
      fallbacks = 0;
      expect(maxRelativeError(run(simd, c, wasmMemory(false)), want)).toBe(0);
      expect(fallbacks).toBe(1);
    }
    const c = { M: 1, K: 64, N: 4, blockSize: 32 };
    expect(maxRelativeError(run(simd, c, undefined), run(reference, c, undefined))).toBe(0);
  });
});

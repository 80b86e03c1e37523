import type { HostTensor, KernelContextV1, KernelV1, LinearMemory } from '@tsge/metadef';
import { defineKernel } from '@tsge/kernels-js/kernel-support';
import { matMulNBitsModule } from './matmul-nbits-module.js';
import { threadWorkspace } from './thread-workspace.js';
import { type NumberTuple, runTiles, splitRange, tileFunction } from './tiles.js';
import { float32Of } from './memory-views.js';

/**
 * com.microsoft MatMulNBits with 4-bit weights on float32 activations in device memory: B stays
 * packed and is dequantized block by block inside the SIMD loop (nbits4 in matmul-nbits-module.ts),
 * columns split across threads. Each tile stages its rows of A, permuted to the nibble order and
 * with per-block sums, in its thread's workspace. Other bit widths, block sizes below 32, float
 * zero points, g_idx, float16 and host memory go to the reference kernel.
 */

const inDeviceMemory = (memory: LinearMemory, t: HostTensor): boolean => (t.data as ArrayBufferView).buffer === memory.buffer;

/** Bytes of workspace one staged row of A takes: the permuted row and its block sums. */
const stagedRowBytes = (blocks: number, blockSize: number): number => blocks * blockSize * 4 + blocks * 4;

const TILE = 'simd.matMulNBits4';
export const matMulNBitsTile = tileFunction(TILE, (memory, t) => {
  const [a, M, K, b, scales, zp, y, N, n0, n1, blocks, blockSize, bias] = t as NumberTuple<13>;
  const kernel = matMulNBitsModule(memory);
  const workspace = threadWorkspace(memory);
  if (!kernel || !workspace) throw new Error('MatMulNBits SIMD tile needs SIMD and a bound thread workspace');
  const perRow = stagedRowBytes(blocks, blockSize);
  const rowsPerPass = Math.max(1, Math.floor(workspace.bytes / perRow));
  const all = float32Of(memory);
  const A = a / 4;
  const permAt = workspace.offset;
  const chunks = (blocks * blockSize) / 32;
  for (let m0 = 0; m0 < M; m0 += rowsPerPass) {
    const rows = Math.min(rowsPerPass, M - m0);
    const sumAt = permAt + rows * blocks * blockSize * 4;
    for (let r = 0; r < rows; r++) {
      const src = A + (m0 + r) * K;
      const dst = permAt / 4 + r * blocks * blockSize;
      for (let c = 0; c < chunks; c++) {
        const k0 = c * 32;
        for (let j = 0; j < 16; j++) {
          const even = k0 + 2 * j;
          all[dst + c * 32 + j] = even < K ? (all[src + even] as number) : 0;
          all[dst + c * 32 + 16 + j] = even + 1 < K ? (all[src + even + 1] as number) : 0;
        }
      }
      for (let kb = 0; kb < blocks; kb++) {
        let sum = 0;
        const end = Math.min(K, (kb + 1) * blockSize);
        for (let k = kb * blockSize; k < end; k++) sum += all[src + k] as number;
        all[sumAt / 4 + r * blocks + kb] = sum;
      }
    }
    const yRows = y + m0 * N * 4;
    kernel.nbits4(permAt, sumAt, rows, b, scales, zp, yRows, N, n0, n1, blocks, blockSize / 32);
    if (bias !== 0) for (let r = 0; r < rows; r++) for (let n = n0; n < n1; n++) all[yRows / 4 + r * N + n] += all[bias / 4 + n] as number;
  }
});

export function simdMatMulNBitsKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: 'MatMulNBits',
    domain: 'com.microsoft',
    name: 'wasm-simd',
    dtypes: ['float32'],
    parallel: true,
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const a = ctx.tensor(0);
      const b = ctx.tensor(1);
      const scales = ctx.tensor(2);
      const zp = ctx.inputCount > 3 ? ctx.tensor(3) : undefined;
      const gIdx = ctx.inputCount > 4 ? ctx.tensor(4) : undefined;
      const bias = ctx.inputCount > 5 ? ctx.tensor(5) : undefined;
      const K = ctx.attrs.int('K', 0);
      const N = ctx.attrs.int('N', 0);
      const blockSize = ctx.attrs.int('block_size', 0);
      const blocks = blockSize > 0 ? Math.ceil(K / blockSize) : 0;
      const workspace = memory ? threadWorkspace(memory) : undefined;
      const simd = memory ? matMulNBitsModule(memory) : undefined;
      // the SIMD path only where every size is what the reference kernel would accept
      const usable =
        memory &&
        simd &&
        workspace &&
        a &&
        b &&
        scales &&
        !gIdx &&
        ctx.attrs.int('bits', 4) === 4 &&
        blockSize >= 32 &&
        (blockSize & (blockSize - 1)) === 0 &&
        K > 0 &&
        N > 0 &&
        a.type === 'float32' &&
        a.dims[a.dims.length - 1] === K &&
        b.type === 'uint8' &&
        b.data.length === N * blocks * (blockSize / 2) &&
        scales.type === 'float32' &&
        scales.data.length === N * blocks &&
        (!zp || (zp.type === 'uint8' && zp.data.length === N * Math.ceil(blocks / 2))) &&
        (!bias || (bias.type === 'float32' && bias.data.length === N)) &&
        stagedRowBytes(blocks, blockSize) <= workspace.bytes &&
        [a, b, scales, ...(zp ? [zp] : []), ...(bias ? [bias] : [])].every((t) => inDeviceMemory(memory, t));
      if (!usable) return reference.compute(ctx);
      const y = ctx.output(0, [...a.dims.slice(0, -1), N], 'float32');
      if (!inDeviceMemory(memory, y)) return reference.compute(ctx);
      const M = a.data.length / K;
      const at = (t: HostTensor | undefined): number => (t ? (t.data as ArrayBufferView).byteOffset : 0);
      const threads = ctx.parallel?.threads ?? 1;
      const tiles = splitRange(N, threads, 8, M * K).map(([n0, n1]) => [
        at(a),
        M,
        K,
        at(b),
        at(scales),
        at(zp),
        at(y),
        N,
        n0,
        n1,
        blocks,
        blockSize,
        at(bias),
      ]);
      runTiles(memory, ctx.parallel, matMulNBitsTile, tiles);
    },
  });
}

/**
 * com.microsoft MatMulNBits reference kernel: dequantizes B one (n, block) at a time and
 * accumulates A · Bᵀ in float64. Element k of row n sits at bit (k % block_size) * bits of block
 * k / block_size; packed zero points follow the same layout per row.
 */
import type { HostTensor, KernelContextV1, KernelV1 } from '@tsge/metadef';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { floatOutput, hasInput, readFloats } from '../common/nn-float-io.js';
import { defineKernel } from '../define.js';

/** Unsigned `bits`-wide value number `index` of a little-endian packed byte run starting at `at`. */
export function packedValue(bytes: Uint8Array, at: number, index: number, bits: number): number {
  const bit = index * bits;
  return ((bytes[at + (bit >> 3)] as number) >> (bit & 7)) & ((1 << bits) - 1);
}

/** Zero point of (row n, block kb): packed uint8, or float values; 2^(bits-1) when omitted. */
function zeroPointReader(
  ctx: KernelContextV1,
  zp: HostTensor | undefined,
  rows: number,
  blocks: number,
  bits: number,
): (n: number, kb: number) => number {
  const fallback = 1 << (bits - 1);
  if (!zp) return () => fallback;
  if (zp.type === 'uint8') {
    const rowBytes = Math.ceil((blocks * bits) / 8);
    if (zp.data.length !== rows * rowBytes)
      throw kernelError(ctx, `packed zero_points must hold ${rows * rowBytes} bytes, got [${zp.dims}]`);
    const bytes = zp.data as Uint8Array;
    return (n, kb) => packedValue(bytes, n * rowBytes, kb, bits);
  }
  if (zp.type === 'int32') throw kernelError(ctx, 'int32 zero_points are not supported');
  const values = readFloats(zp);
  if (values.length !== rows * blocks) throw kernelError(ctx, `float zero_points must hold ${rows * blocks} values, got [${zp.dims}]`);
  return (n, kb) => values[n * blocks + kb] as number;
}

function compute(ctx: KernelContextV1): void {
  const a = requireTensor(ctx, 0);
  const b = requireTensor(ctx, 1);
  const K = ctx.attrs.int('K', 0);
  const N = ctx.attrs.int('N', 0);
  const bits = ctx.attrs.int('bits', 4);
  const blockSize = ctx.attrs.int('block_size', 0);
  if (bits !== 2 && bits !== 4 && bits !== 8) throw kernelError(ctx, `bits must be 2, 4 or 8, got ${bits}`);
  if (K <= 0 || N <= 0 || blockSize < 16 || (blockSize & (blockSize - 1)) !== 0)
    throw kernelError(ctx, `K ${K}, N ${N} and block_size ${blockSize} are invalid`);
  if (a.dims[a.dims.length - 1] !== K) throw kernelError(ctx, `A [${a.dims}] must end in K = ${K}`);
  const blocks = Math.ceil(K / blockSize);
  const blob = (blockSize * bits) / 8;
  if (b.type !== 'uint8' || b.data.length !== N * blocks * blob)
    throw kernelError(ctx, `B must be uint8 [${N}, ${blocks}, ${blob}], got ${b.type} [${b.dims}]`);
  const scales = readFloats(requireTensor(ctx, 2));
  if (scales.length !== N * blocks) throw kernelError(ctx, `scales must hold ${N * blocks} values, got ${scales.length}`);
  const zeroPoint = zeroPointReader(ctx, hasInput(ctx, 3) ? requireTensor(ctx, 3) : undefined, N, blocks, bits);
  if (hasInput(ctx, 4)) throw kernelError(ctx, 'g_idx is not supported');
  const bias = hasInput(ctx, 5) ? readFloats(requireTensor(ctx, 5)) : undefined;
  if (bias && bias.length !== N) throw kernelError(ctx, `bias must hold N = ${N} values`);
  const bytes = b.data as Uint8Array;
  // dequantized B row by row: [N, K]
  const w = new Float64Array(N * K);
  for (let n = 0; n < N; n++)
    for (let k = 0; k < K; k++) {
      const kb = Math.floor(k / blockSize);
      const q = packedValue(bytes, (n * blocks + kb) * blob, k % blockSize, bits);
      w[n * K + k] = (q - zeroPoint(n, kb)) * (scales[n * blocks + kb] as number);
    }
  const xs = readFloats(a);
  const rows = xs.length / K;
  const out = floatOutput(ctx, 0, [...a.dims.slice(0, -1), N], a.type);
  for (let r = 0; r < rows; r++)
    for (let n = 0; n < N; n++) {
      let acc = bias ? (bias[n] as number) : 0;
      for (let k = 0; k < K; k++) acc += (xs[r * K + k] as number) * (w[n * K + k] as number);
      out.data[r * N + n] = acc;
    }
  out.commit();
}

export const matMulNBitsKernels: readonly KernelV1[] = [defineKernel({ opType: 'MatMulNBits', domain: 'com.microsoft', compute })];

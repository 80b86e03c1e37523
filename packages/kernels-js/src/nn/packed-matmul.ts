/** tsge::PackedMatMul: MatMul with a constant B in 8-column panels, then an optional bias and activation. */
import { type HostTensor, type KernelContextV1, type KernelV1, TSGE_DOMAIN } from '@tsge/metadef';
import { PACKED_MATMUL, PACKED_MATMUL_PANEL } from '@tsge/ops/kernel-support';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';
import { applyActivation } from '../fused/activation.js';
import { applyEpilogue } from '../fused/epilogue.js';

/** The operands of a PackedMatMul: rows of A (every batch dim folded in), N, K and Y's dims. */
export function packedMatMulShape(ctx: KernelContextV1): {
  a: HostTensor;
  b: HostTensor;
  rows: number;
  n: number;
  k: number;
  dims: number[];
} {
  const a = requireTensor(ctx, 0);
  const b = requireTensor(ctx, 1);
  const n = ctx.attrs.int('n');
  if (a.type !== 'float32' || b.type !== 'float32') throw kernelError(ctx, `A and B_packed must be float32, got ${a.type} and ${b.type}`);
  if (a.dims.length < 2) throw kernelError(ctx, `A must have rank 2 or more, got [${a.dims}]`);
  const k = a.dims[a.dims.length - 1] as number;
  if (b.dims.length !== 3 || b.dims[0] !== Math.ceil(n / PACKED_MATMUL_PANEL) || b.dims[1] !== k || b.dims[2] !== PACKED_MATMUL_PANEL)
    throw kernelError(ctx, `B_packed [${b.dims}] does not hold K = ${k} rows of n = ${n} columns in 8-column panels`);
  const rows = a.dims.slice(0, -1).reduce((p, d) => p * d, 1);
  return { a, b, rows, n, k, dims: [...a.dims.slice(0, -1), n] };
}

/** Adds the optional bias over the last axis and applies the activation, in place. */
export function packedMatMulEpilogue(ctx: KernelContextV1, y: Float32Array, dims: readonly number[]): void {
  const n = dims[dims.length - 1] as number;
  const bias = ctx.tensor(2);
  if (bias) {
    if (bias.type !== 'float32' || bias.data.length !== n)
      throw kernelError(ctx, `bias must be ${n} float32 values, got [${bias.dims}] ${bias.type}`);
    const values = bias.data as Float32Array;
    for (let i = 0; i < y.length; i += n) for (let j = 0; j < n; j++) y[i + j] = (y[i + j] as number) + (values[j] as number);
  }
  const activation = ctx.attrs.string('activation', '');
  if (activation !== '') applyActivation(y, activation, ctx.attrs.floats('activation_params', []));
  applyEpilogue(ctx, y, dims);
}

function compute(ctx: KernelContextV1): void {
  const { a, b, rows, n, k, dims } = packedMatMulShape(ctx);
  const A = a.data as Float32Array;
  const B = b.data as Float32Array;
  const y = ctx.output(0, dims, 'float32');
  const Y = y.data as Float32Array;
  const P = PACKED_MATMUL_PANEL;
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < n; j++) {
      const panel = Math.floor(j / P) * k * P + (j % P);
      let s = 0;
      for (let p = 0; p < k; p++) s += (A[i * k + p] as number) * (B[panel + p * P] as number);
      Y[i * n + j] = s;
    }
  packedMatMulEpilogue(ctx, Y, dims);
}

export const packedMatMulKernel: KernelV1 = defineKernel({ opType: PACKED_MATMUL, domain: TSGE_DOMAIN, compute });

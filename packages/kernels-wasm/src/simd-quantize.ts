import { type HostTensor, type KernelContextV1, type KernelV1, TSGE_DOMAIN, readNumber } from '@tsge/metadef';
import { defineKernel, quantizedAddParams, quantizedAddValue } from '@tsge/kernels-js/kernel-support';
import { QUANTIZED_ADD, roundHalfEven } from '@tsge/ops/kernel-support';
import { extraModule } from './extra-modules.js';
import { type QuantizeExports, quantizeFunctions } from './quantize-module.js';

/**
 * DequantizeLinear (uint8/int8 → float32) and QuantizeLinear (float32 → uint8/int8) with one scale
 * and zero point, on tensors in device memory: the quantized residual additions and pools of
 * TFLite models go through them. The vector loop computes the reference's float32 values; the
 * last n % 16 elements take the reference's formula here. Anything else (per-axis or blocked
 * parameters, other types, host memory) runs the reference kernel. tsge::QuantizedAdd (the
 * TFLite residual additions) of two byte tensors of one shape runs in i32 lanes.
 */

const quantizeModule = extraModule('quantize', quantizeFunctions);
const exportsOf = (ctx: KernelContextV1) =>
  ctx.memory ? (quantizeModule(ctx.memory) as unknown as QuantizeExports | undefined) : undefined;

function inMemory(ctx: KernelContextV1, ...tensors: HostTensor[]): boolean {
  return tensors.every((t) => ArrayBuffer.isView(t.data) && t.data.buffer === ctx.memory?.buffer);
}

const isBytes = (t: HostTensor | undefined): t is HostTensor => t?.type === 'uint8' || t?.type === 'int8';

/** The single scale and zero point of a per-tensor (de)quantization, or undefined. */
function perTensor(ctx: KernelContextV1, zpType: HostTensor['type'] | undefined): { scale: number; zp: number } | undefined {
  const scale = ctx.tensor(1);
  const zp = ctx.inputCount > 2 ? ctx.tensor(2) : undefined;
  if (scale?.type !== 'float32' || scale.data.length !== 1 || ctx.attrs.int('block_size', 0) !== 0) return undefined;
  if (zp && (zp.data.length !== 1 || zp.type !== zpType)) return undefined;
  return { scale: scale.data[0] as number, zp: zp ? readNumber(zp, 0) : 0 };
}

function dequantize(ctx: KernelContextV1): boolean {
  const x = ctx.tensor(0);
  const k = exportsOf(ctx);
  const code = ctx.attrs.int('output_dtype', 0);
  if (!k || !isBytes(x) || (code !== 0 && code !== 1) || !inMemory(ctx, x)) return false;
  const p = perTensor(ctx, x.type);
  if (!p) return false;
  const y = ctx.output(0, x.dims, 'float32');
  if (!inMemory(ctx, y)) return false;
  const xs = x.data as Uint8Array | Int8Array;
  const ys = y.data as Float32Array;
  const n = xs.length;
  k.dequantizeBytes(xs.byteOffset, ys.byteOffset, n, p.zp, p.scale, x.type === 'int8' ? 1 : 0);
  for (let i = n & ~15; i < n; i++) ys[i] = ((xs[i] as number) - p.zp) * p.scale;
  return true;
}

function quantize(ctx: KernelContextV1): boolean {
  const x = ctx.tensor(0);
  const zpT = ctx.inputCount > 2 ? ctx.tensor(2) : undefined;
  const k = exportsOf(ctx);
  if (!k || x?.type !== 'float32' || !isBytes(zpT) || !inMemory(ctx, x)) return false;
  const code = ctx.attrs.int('output_dtype', 0);
  if (code !== 0 && code !== (zpT.type === 'uint8' ? 2 : 3)) return false;
  const p = perTensor(ctx, zpT.type);
  if (!p) return false;
  const y = ctx.output(0, x.dims, zpT.type);
  if (!inMemory(ctx, y)) return false;
  const [lo, hi] = zpT.type === 'uint8' ? [0, 255] : [-128, 127];
  const xs = x.data as Float32Array;
  const ys = y.data as Uint8Array | Int8Array;
  const n = xs.length;
  k.quantizeFloats(xs.byteOffset, ys.byteOffset, n, p.scale, p.zp, lo - p.zp, hi - p.zp, zpT.type === 'int8' ? 1 : 0);
  for (let i = n & ~15; i < n; i++) {
    const q = roundHalfEven(Math.fround((xs[i] as number) / p.scale)) + p.zp;
    ys[i] = q < lo ? lo : Math.min(q, hi);
  }
  return true;
}

function add(ctx: KernelContextV1): boolean {
  const a = ctx.tensor(0);
  const b = ctx.tensor(1);
  const k = exportsOf(ctx);
  if (!k || !isBytes(a) || b?.type !== a.type || !inMemory(ctx, a, b)) return false;
  if (a.dims.length !== b.dims.length || a.dims.some((d, i) => d !== b.dims[i])) return false;
  const y = ctx.output(0, a.dims, a.type);
  if (!inMemory(ctx, y)) return false;
  const p = quantizedAddParams(ctx, a.type as 'uint8' | 'int8');
  const [xa, xb, ys] = [a.data, b.data, y.data] as (Uint8Array | Int8Array)[] as [Uint8Array, Uint8Array, Uint8Array];
  const n = ys.length;
  k.addBytes(xa.byteOffset, xb.byteOffset, ys.byteOffset, n, p.am, p.bm, p.bias, p.shift, p.zp, a.type === 'int8' ? 1 : 0);
  for (let i = n & ~15; i < n; i++) ys[i] = quantizedAddValue(xa[i] as number, xb[i] as number, p);
  return true;
}

/** DequantizeLinear, QuantizeLinear and tsge::QuantizedAdd; `reference` finds the reference kernel of an op. */
export function simdQuantizeKernels(reference: (opType: string) => KernelV1): KernelV1[] {
  const dq = reference('DequantizeLinear');
  const q = reference('QuantizeLinear');
  const qadd = reference(QUANTIZED_ADD);
  return [
    defineKernel({
      opType: 'DequantizeLinear',
      name: 'wasm-simd',
      dtypes: ['uint8', 'int8'],
      compute: (ctx) => {
        if (!dequantize(ctx)) dq.compute(ctx);
      },
    }),
    defineKernel({
      opType: 'QuantizeLinear',
      name: 'wasm-simd',
      dtypes: ['float32'],
      compute: (ctx) => {
        if (!quantize(ctx)) q.compute(ctx);
      },
    }),
    defineKernel({
      opType: QUANTIZED_ADD,
      domain: TSGE_DOMAIN,
      name: 'wasm-simd',
      dtypes: ['uint8', 'int8'],
      compute: (ctx) => {
        if (!add(ctx)) qadd.compute(ctx);
      },
    }),
  ];
}

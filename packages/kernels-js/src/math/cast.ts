/** Cast, CastLike and BitCast: conversions between every tensor dtype. */
import { type DataType, type HostTensor, type KernelContextV1, type KernelV1, isBigIntType } from '@tsge/metadef';
import { isSmallFloatType } from '../common/math-float8.js';
import { numbersOf, storeNumbers } from '../common/math-values.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';
import { roundHalfEven, readTargetType } from '@tsge/ops/kernel-support';

/** Shortest decimal that reads back as the same float32, in Python/numpy style ('1.0', '1e-05'). */
export function floatToString(value: number, single: boolean): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  let digits = String(value);
  if (single) {
    for (let p = 1; p <= 9; p++) {
      const candidate = value.toPrecision(p);
      if (Math.fround(Number(candidate)) === value) {
        digits = String(Number(candidate));
        break;
      }
    }
  }
  const n = Number(digits);
  if (n === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const exponent = Math.floor(Math.log10(Math.abs(n)));
  if (exponent < -4 || exponent >= 16) {
    const [mantissa, exp] = n.toExponential().split('e') as [string, string];
    const e = Number(exp);
    return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  return Number.isInteger(n)
    ? `${n.toFixed(0)}.0`
    : digits.includes('e')
      ? n.toFixed(Math.max(0, -exponent + 8)).replace(/0+$/, '')
      : digits;
}

function parseNumber(text: string): number {
  const t = text.trim().toLowerCase();
  if (t === 'inf' || t === '+inf' || t === 'infinity' || t === '+infinity') return Number.POSITIVE_INFINITY;
  if (t === '-inf' || t === '-infinity') return Number.NEGATIVE_INFINITY;
  if (t === 'nan' || t === '+nan' || t === '-nan') return Number.NaN;
  return t === '' ? Number.NaN : Number(t);
}

/** Casts a typed-array copy does exactly, by target type: integers into wider ones, any of them into floats. */
const WIDENING: Partial<Record<DataType, readonly DataType[]>> = {
  float64: ['uint8', 'int8', 'uint16', 'int16', 'uint32', 'int32', 'float32'],
  float32: ['uint8', 'int8', 'uint16', 'int16', 'uint32', 'int32'],
  int32: ['uint8', 'int8', 'uint16', 'int16'],
  uint32: ['uint8', 'uint16'],
  int16: ['uint8', 'int8'],
  uint16: ['uint8'],
};

/** Converts `x` into a fresh or given output tensor of `to`. */
export function castInto(x: HostTensor, out: HostTensor, saturate: boolean): void {
  const to = out.type;
  const from = x.type;
  const n = x.data.length;
  if (to === from) {
    if (Array.isArray(x.data)) for (let i = 0; i < n; i++) (out.data as string[])[i] = x.data[i]!;
    else (out.data as Uint8Array).set(x.data as Uint8Array);
    return;
  }
  if (to === 'string') {
    const dst = out.data as string[];
    if (isBigIntType(from)) for (let i = 0; i < n; i++) dst[i] = String(x.data[i]);
    else if (from === 'bool') for (let i = 0; i < n; i++) dst[i] = x.data[i] ? 'True' : 'False';
    else {
      const src = numbersOf(x);
      const floatLike = from === 'float64' || from === 'float32' || from === 'float16' || from === 'bfloat16' || isSmallFloatType(from);
      const single = from !== 'float64';
      for (let i = 0; i < n; i++) dst[i] = floatLike ? floatToString(src[i]!, single) : String(src[i]);
    }
    return;
  }
  if (from === 'string') {
    const src = x.data as string[];
    if (isBigIntType(to)) {
      const dst = out.data as BigInt64Array;
      for (let i = 0; i < n; i++) {
        const s = src[i]!.trim();
        dst[i] = /^[+-]?\d+$/.test(s) ? BigInt.asIntN(64, BigInt(s)) : BigInt(Math.trunc(parseNumber(s)) || 0);
      }
      return;
    }
    storeNumbers(out, Float64Array.from(src, parseNumber), saturate);
    return;
  }
  if (isBigIntType(from) && isBigIntType(to)) {
    const src = x.data as BigInt64Array;
    const dst = out.data as BigInt64Array;
    for (let i = 0; i < n; i++) dst[i] = to === 'int64' ? BigInt.asIntN(64, src[i]!) : BigInt.asUintN(64, src[i]!);
    return;
  }
  if (WIDENING[to]?.includes(from)) {
    // every value of `from` is exact in `to` (or, to float32, rounds to nearest-even as a store does): the typed-array copy converts natively
    (out.data as Float32Array).set(x.data as Float32Array);
    return;
  }
  const src = numbersOf(x);
  if (to === 'int4' || to === 'uint4') {
    // out-of-range values wrap modulo 16, as the ONNX reference does
    const dst = out.data as Int8Array | Uint8Array;
    for (let i = 0; i < n; i++) {
      const v = roundHalfEven(src[i]!);
      const wrapped = Number.isFinite(v) ? ((v % 16) + 16) % 16 : 0;
      dst[i] = to === 'int4' && wrapped >= 8 ? wrapped - 16 : wrapped;
    }
    return;
  }
  storeNumbers(out, src, saturate);
}

function runCast(ctx: KernelContextV1, to: DataType | undefined): void {
  const x = requireTensor(ctx, 0);
  if (!to) throw kernelError(ctx, 'the target type is missing or unknown');
  castInto(x, ctx.output(0, x.dims, to), ctx.attrs.int('saturate', 1) !== 0);
}

export const castKernels: readonly KernelV1[] = [
  defineKernel({ opType: 'Cast', compute: (ctx) => runCast(ctx, readTargetType(ctx.attrs)) }),
  defineKernel({ opType: 'CastLike', compute: (ctx) => runCast(ctx, requireTensor(ctx, 1).type) }),
  defineKernel({
    opType: 'BitCast',
    compute: (ctx) => {
      const x = requireTensor(ctx, 0);
      const to = readTargetType(ctx.attrs);
      if (!to) throw kernelError(ctx, 'the target type is missing or unknown');
      const out = ctx.output(0, x.dims, to);
      const src = x.data as Uint8Array;
      const dst = out.data as Uint8Array;
      if (src.byteLength !== dst.byteLength) throw kernelError(ctx, `${x.type} and ${to} differ in size`);
      new Uint8Array(dst.buffer, dst.byteOffset, dst.byteLength).set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength));
    },
  }),
];

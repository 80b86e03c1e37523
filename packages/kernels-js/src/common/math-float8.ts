/**
 * Small float formats (float8 kinds, float4e2m1): decode through a 256-entry table, encode by
 * round-to-nearest-even over the sorted representable values, with ONNX's saturate rules.
 */
export type SmallFloatType = 'float8e4m3fn' | 'float8e4m3fnuz' | 'float8e5m2' | 'float8e5m2fnuz' | 'float4e2m1';

interface SmallFloatFormat {
  readonly decode: Float64Array;
  /** Positive finite codes in increasing value order, and their values. */
  readonly codes: Uint8Array;
  readonly values: Float64Array;
  readonly signBit: number;
  readonly nanCode: number;
  /** Code of +infinity, or -1 when the format has none. */
  readonly infCode: number;
  /** Whether negative zero exists (fnuz formats have none). */
  readonly negativeZero: boolean;
}

const FORMATS = new Map<SmallFloatType, SmallFloatFormat>();

function build(type: SmallFloatType): SmallFloatFormat {
  const [expBits, mantBits, bias, fnuz] =
    type === 'float8e4m3fn'
      ? [4, 3, 7, false]
      : type === 'float8e4m3fnuz'
        ? [4, 3, 8, true]
        : type === 'float8e5m2'
          ? [5, 2, 15, false]
          : type === 'float8e5m2fnuz'
            ? [5, 2, 16, true]
            : [2, 1, 1, false];
  const bits = 1 + expBits + mantBits;
  const signBit = 1 << (bits - 1);
  const size = 1 << bits;
  const decode = new Float64Array(256);
  const expMax = (1 << expBits) - 1;
  for (let code = 0; code < size; code++) {
    const sign = code & signBit ? -1 : 1;
    const exp = (code >> mantBits) & expMax;
    const mant = code & ((1 << mantBits) - 1);
    let value = exp === 0 ? mant * 2 ** (1 - bias - mantBits) : (1 + mant / (1 << mantBits)) * 2 ** (exp - bias);
    if (type === 'float8e5m2' && exp === expMax) value = mant === 0 ? Number.POSITIVE_INFINITY : Number.NaN;
    if (type === 'float8e4m3fn' && exp === expMax && mant === (1 << mantBits) - 1) value = Number.NaN;
    if (fnuz && code === signBit) value = Number.NaN;
    decode[code] = sign * value;
  }
  const codes: number[] = [];
  for (let code = 0; code < signBit; code++) if (Number.isFinite(decode[code]!)) codes.push(code);
  codes.sort((a, b) => decode[a]! - decode[b]!);
  return {
    decode,
    codes: Uint8Array.from(codes),
    values: Float64Array.from(codes, (c) => decode[c]!),
    signBit,
    // float4e2m1 has no NaN; ONNX maps NaN to 0x8 there
    nanCode: type === 'float4e2m1' ? 0x8 : fnuz ? 0x80 : type === 'float8e5m2' ? 0x7e : 0x7f,
    infCode: type === 'float8e5m2' ? 0x7c : -1,
    negativeZero: !fnuz,
  };
}

function format(type: SmallFloatType): SmallFloatFormat {
  let f = FORMATS.get(type);
  if (!f) {
    f = build(type);
    FORMATS.set(type, f);
  }
  return f;
}

export function isSmallFloatType(dtype: string): dtype is SmallFloatType {
  return dtype.startsWith('float8') || dtype === 'float4e2m1';
}

/** The decode table of a small float type (code → value). */
export function smallFloatDecodeTable(type: SmallFloatType): Float64Array {
  return format(type).decode;
}

/** Encodes `value` with round-to-nearest-even; `saturate` clamps out-of-range values to ±max. */
export function encodeSmallFloat(type: SmallFloatType, value: number, saturate: boolean): number {
  const f = format(type);
  if (Number.isNaN(value)) return f.nanCode;
  const negative = value < 0 || Object.is(value, -0);
  const sign = negative && (f.negativeZero || value !== 0) ? f.signBit : 0;
  const magnitude = Math.abs(value);
  const values = f.values;
  const last = values.length - 1;
  const max = values[last]!;
  if (magnitude > max) {
    const ulp = max - values[last - 1]!;
    const half = max + ulp / 2;
    const infinite = !Number.isFinite(magnitude);
    if (!infinite && (magnitude < half || (magnitude === half && (f.codes[last]! & 1) === 0))) return sign | f.codes[last]!;
    // float4e2m1 has neither infinity nor NaN: always saturate
    if (type === 'float4e2m1') return sign | f.codes[last]!;
    if (saturate) return sign | f.codes[last]!;
    if (f.infCode >= 0) return sign | f.infCode;
    return f.negativeZero ? sign | f.nanCode : f.nanCode;
  }
  // binary search the first value >= magnitude
  let lo = 0;
  let hi = last;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid]! < magnitude) lo = mid + 1;
    else hi = mid;
  }
  let pick = lo;
  if (lo > 0 && values[lo] !== magnitude) {
    const below = values[lo - 1]!;
    const above = values[lo]!;
    const d1 = magnitude - below;
    const d2 = above - magnitude;
    if (d1 < d2 || (d1 === d2 && (f.codes[lo - 1]! & 1) === 0)) pick = lo - 1;
  }
  const code = f.codes[pick]!;
  if (code === 0 && !f.negativeZero) return 0;
  return sign | code;
}

/** Quantization helpers shared by the quantized nn ops: rounding, saturation, integer type ranges. */
import type { DataType, HostTensor } from '@tsge/metadef';

/** Round half to even, as ONNX QuantizeLinear specifies. */
export function roundHalfEven(v: number): number {
  const r = Math.round(v);
  // Math.round rounds .5 up; move ties that landed on odd back down
  if (r - v === 0.5 && r % 2 !== 0) return r - 1;
  return r;
}

/** [min, max] of an integer dtype. */
export function integerRange(dtype: DataType): readonly [number, number] {
  switch (dtype) {
    case 'uint8':
      return [0, 255];
    case 'int8':
      return [-128, 127];
    case 'uint16':
      return [0, 65535];
    case 'int16':
      return [-32768, 32767];
    case 'int32':
      return [-2147483648, 2147483647];
    case 'uint32':
      return [0, 4294967295];
    case 'uint4':
      return [0, 15];
    case 'int4':
      return [-8, 7];
    default:
      return [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
  }
}

/** Element i of a (possibly omitted) scalar or per-index tensor as a number; 0 when omitted. */
export function quantParamAt(t: HostTensor | undefined, values: Float64Array | undefined, i: number): number {
  if (!t || !values || values.length === 0) return 0;
  return values.length === 1 ? (values[0] as number) : (values[i] as number);
}

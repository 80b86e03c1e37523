import { type HostTensor, createTensor } from '@tsge/metadef';

export function int64Vector(values: readonly number[]): HostTensor {
  return createTensor('int64', [values.length], BigInt64Array.from(values.map((v) => BigInt(Math.trunc(v)))));
}
export function float32Scalar(value: number): HostTensor {
  return createTensor('float32', [], Float32Array.of(value));
}
export function float32Vector(values: readonly number[]): HostTensor {
  return createTensor('float32', [values.length], Float32Array.from(values));
}

import type { DataType, Dim, HostTensor } from '@tsge/metadef';
import { TsgeError, createTensor, elementCount, numberToBfloat16, numberToFloat16 } from '@tsge/metadef';

/** mulberry32: a small seeded PRNG so runs are reproducible. */
export function createRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Concrete dims for an input: symbolic/unknown dims come from `override` or default to 1. */
export function concreteDims(name: string, shape: readonly Dim[], override?: readonly number[]): number[] {
  if (override) {
    if (override.length !== shape.length) {
      throw TsgeError.of('TSGE-E7002', {
        option: '--input-shape',
        value: `${name}:${override.join(',')}`,
        reason: `the model's input has rank ${shape.length}`,
      });
    }
    return [...override];
  }
  return shape.map((d) => (typeof d === 'number' && d >= 0 ? d : 1));
}

/** A random tensor: floats uniform in [0, 1), integers in [0, 10), bools 0/1. */
export function randomTensor(dtype: DataType, dims: readonly number[], random: () => number): HostTensor {
  const t = createTensor(dtype, dims);
  const n = elementCount(dims);
  const data = t.data;
  for (let i = 0; i < n; i++) {
    const r = random();
    switch (dtype) {
      case 'float32':
      case 'float64':
        (data as Float32Array)[i] = r;
        break;
      case 'float16':
        (data as Uint16Array)[i] = numberToFloat16(r);
        break;
      case 'bfloat16':
        (data as Uint16Array)[i] = numberToBfloat16(r);
        break;
      case 'int64':
        (data as BigInt64Array)[i] = BigInt(Math.floor(r * 10));
        break;
      case 'uint64':
        (data as BigUint64Array)[i] = BigInt(Math.floor(r * 10));
        break;
      case 'bool':
        (data as Uint8Array)[i] = r < 0.5 ? 0 : 1;
        break;
      case 'string':
        (data as string[])[i] = `s${Math.floor(r * 100)}`;
        break;
      default:
        (data as Int32Array)[i] = Math.floor(r * 10);
    }
  }
  return t;
}

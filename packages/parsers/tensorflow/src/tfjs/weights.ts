import { type DataType, type HostTensor, createTensor, float16ToNumber } from '@tsge/metadef';
import { LIMITS, TfProblem } from '../internal/problem.js';
import { fromBytes } from '../import/tensor.js';

/** One entry of a TensorFlow.js weights manifest group. */
interface WeightEntry {
  readonly name: string;
  readonly shape: readonly number[];
  readonly dtype: string;
  readonly quantization?: { readonly dtype: string; readonly min?: number; readonly scale?: number; readonly original_dtype?: string };
}

interface ManifestGroup {
  readonly paths: readonly string[];
  readonly weights: readonly WeightEntry[];
}

const problem = (reason: string) => new TfProblem('TSGE-E3108', { reason });

const WIDTH: Readonly<Record<string, number>> = {
  float32: 4,
  int32: 4,
  bool: 1,
  uint8: 1,
  uint16: 2,
  float16: 2,
  int8: 1,
  int16: 2,
  complex64: 8,
};
const STORED: Readonly<Record<string, DataType>> = { float32: 'float32', int32: 'int32', bool: 'bool', complex64: 'complex64' };

function checkedManifest(value: unknown): ManifestGroup[] {
  if (!Array.isArray(value)) throw problem('weightsManifest is not a list');
  return value.map((g, i) => {
    const group = g as Partial<ManifestGroup>;
    if (!Array.isArray(group.paths) || !group.paths.every((p) => typeof p === 'string')) throw problem(`group ${i} has no list of paths`);
    if (!Array.isArray(group.weights)) throw problem(`group ${i} has no list of weights`);
    for (const w of group.weights) {
      const e = w as Partial<WeightEntry>;
      if (
        typeof e.name !== 'string' ||
        typeof e.dtype !== 'string' ||
        !Array.isArray(e.shape) ||
        !e.shape.every((d) => Number.isSafeInteger(d) && d >= 0)
      )
        throw problem(`group ${i} has a malformed weight entry`);
    }
    return group as ManifestGroup;
  });
}

/** Dequantizes a tfjs-quantized weight to its original dtype (uint8/uint16: q * scale + min; float16: halfs). */
function dequantize(entry: WeightEntry, bytes: Uint8Array, count: number): HostTensor {
  const q = entry.quantization as NonNullable<WeightEntry['quantization']>;
  const target = (q.original_dtype ?? entry.dtype) as string;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const read =
    q.dtype === 'uint8'
      ? (i: number) => view.getUint8(i)
      : q.dtype === 'uint16'
        ? (i: number) => view.getUint16(2 * i, true)
        : q.dtype === 'float16'
          ? (i: number) => float16ToNumber(view.getUint16(2 * i, true))
          : undefined;
  if (!read) throw problem(`weight ${entry.name} has quantization dtype ${q.dtype}`);
  const affine = q.dtype !== 'float16';
  const scale = q.scale ?? 1;
  const min = q.min ?? 0;
  if (affine && (!Number.isFinite(scale) || !Number.isFinite(min)))
    throw problem(`weight ${entry.name} has a bad quantization scale or min`);
  if (target === 'int32') {
    const out = new Int32Array(count);
    for (let i = 0; i < count; i++) out[i] = Math.round(affine ? read(i) * scale + min : read(i));
    return createTensor('int32', entry.shape, out);
  }
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = affine ? read(i) * scale + min : read(i);
  return createTensor('float32', entry.shape, out);
}

function decodeStrings(entry: WeightEntry, bytes: Uint8Array, start: number, count: number): { tensor: HostTensor; end: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoder = new TextDecoder();
  const values: string[] = [];
  let at = start;
  for (let i = 0; i < count; i++) {
    if (at + 4 > bytes.length) throw problem(`string weight ${entry.name} is truncated`);
    const n = view.getUint32(at, true);
    at += 4;
    if (at + n > bytes.length) throw problem(`string weight ${entry.name} is truncated`);
    values.push(decoder.decode(bytes.subarray(at, at + n)));
    at += n;
  }
  return { tensor: createTensor('string', entry.shape, values), end: at };
}

/** Reads every weight of a manifest from its shard files (concatenated per group, in order). */
export async function readWeights(
  manifestValue: unknown,
  readRelative: ((p: string) => Promise<Uint8Array>) | undefined,
): Promise<Map<string, HostTensor>> {
  const manifest = checkedManifest(manifestValue);
  const weights = new Map<string, HostTensor>();
  if (!manifest.some((g) => g.weights.length)) return weights;
  if (!readRelative) throw problem('the model has weight files but was given as bytes alone (no folder to read them from)');
  for (const group of manifest) {
    const parts: Uint8Array[] = [];
    for (const p of group.paths) {
      try {
        parts.push(await readRelative(p));
      } catch (error) {
        if (error instanceof TfProblem) throw error;
        const coded = error as { code?: string };
        if (typeof coded.code === 'string' && coded.code.startsWith('TSGE-')) throw error;
        throw problem(`cannot read weight file ${p}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const total = parts.reduce((a, b) => a + b.length, 0);
    const bytes = new Uint8Array(total);
    let offset = 0;
    for (const part of parts) {
      bytes.set(part, offset);
      offset += part.length;
    }
    let at = 0;
    for (const entry of group.weights) {
      let count = 1;
      for (const d of entry.shape) count *= d;
      if (count > LIMITS.tensorElements) throw problem(`weight ${entry.name} has ${count} elements`);
      if (entry.dtype === 'string') {
        const { tensor, end } = decodeStrings(entry, bytes, at, count);
        weights.set(entry.name, tensor);
        at = end;
        continue;
      }
      const dtype = entry.quantization?.dtype ?? entry.dtype;
      const width = WIDTH[dtype];
      if (!width) throw problem(`weight ${entry.name} has dtype ${dtype}`);
      const size = count * width;
      if (at + size > bytes.length)
        throw problem(`weight ${entry.name} needs ${size} bytes at offset ${at}; the shards hold ${bytes.length}`);
      const slice = bytes.subarray(at, at + size);
      at += size;
      if (entry.quantization) weights.set(entry.name, dequantize(entry, slice, count));
      else {
        const type = STORED[entry.dtype];
        if (!type) throw problem(`weight ${entry.name} has dtype ${entry.dtype}`);
        weights.set(entry.name, fromBytes(type, entry.shape, slice, entry.name));
      }
    }
  }
  return weights;
}

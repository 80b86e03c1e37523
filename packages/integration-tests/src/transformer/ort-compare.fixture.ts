// Runs one ONNX model in onnxruntime-node and in tsge (parse → compile → load) on the same feeds
// and compares the named outputs element by element.
import { type BuildOptions, compileModel, loadModel, parseModel } from '@tsge/ge';
import { type HostTensor, float16ToNumber, numberToFloat16 } from '@tsge/metadef';
import * as ort from 'onnxruntime-node';
import { expect } from 'vitest';

/** A seeded uniform [0, 1) generator. */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Uniform random floats in [-1, 1) (float32 or float16 bits). */
export function randomFloats(type: 'float32' | 'float16', dims: number[], random: () => number): HostTensor {
  const n = dims.reduce((a, b) => a * b, 1);
  const values = Array.from({ length: n }, () => random() * 2 - 1);
  if (type === 'float32') return { type, dims, data: Float32Array.from(values) };
  return { type, dims, data: Uint16Array.from(values, numberToFloat16) };
}

/** Uniform random bytes in [0, 256). */
export function randomBytes(dims: number[], random: () => number): HostTensor {
  const n = dims.reduce((a, b) => a * b, 1);
  return { type: 'uint8', dims, data: Uint8Array.from({ length: n }, () => Math.floor(random() * 256)) };
}

export const int32s = (dims: number[], values: number[]): HostTensor => ({ type: 'int32', dims, data: Int32Array.from(values) });
export const int64s = (dims: number[], values: number[]): HostTensor => ({
  type: 'int64',
  dims,
  data: BigInt64Array.from(values, (v) => BigInt(v)),
});

const numbers = (t: { type: string; data: unknown }): number[] =>
  t.type === 'float16'
    ? Array.from(t.data as Uint16Array, float16ToNumber)
    : Array.from(t.data as ArrayLike<number | bigint>, (v) => Number(v));

/** The largest absolute difference of every named output between onnxruntime-node and tsge. */
export async function expectLikeOrt(options: {
  readonly label: string;
  readonly bytes: Uint8Array;
  readonly feeds: Record<string, HostTensor>;
  readonly outputs: readonly string[];
  readonly tolerance: number;
  /** The model onnxruntime runs instead of `bytes` (an equivalent graph of ops it has CPU kernels for). */
  readonly reference?: Uint8Array;
  /** Worker threads tsge runs with (1 unless given). */
  readonly threads?: number;
  /** Compile options for tsge (a precision mode, say). */
  readonly compile?: BuildOptions;
}): Promise<void> {
  const { label, bytes, feeds } = options;
  const session = await ort.InferenceSession.create(options.reference ?? bytes);
  const expected = await session.run(
    Object.fromEntries(
      Object.entries(feeds).map(([k, t]) => [k, new ort.Tensor(t.type as 'float32', t.data as Float32Array, t.dims as number[])]),
    ),
  );
  await session.release();
  const model = await loadModel((await compileModel(await parseModel(bytes, { fileName: `${label}.onnx` }), options.compile)).om, {
    threads: options.threads ?? 1,
  });
  const actual = await model.run(feeds);
  await model.release();
  for (const name of options.outputs) {
    const want = expected[name] as ort.Tensor;
    const got = actual[name] as HostTensor;
    expect(got, `${label}: ${name}`).toBeDefined();
    expect(got.dims, `${label}: ${name} dims`).toEqual(want.dims);
    const a = numbers(got);
    const b = numbers(want);
    let worst = 0;
    for (let i = 0; i < b.length; i++) worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
    expect(worst, `${label}: ${name}`).toBeLessThanOrEqual(options.tolerance);
    // a difference of NaN must fail too
    expect(
      a.every((v, i) => Number.isNaN(v) === Number.isNaN(b[i] as number)),
      `${label}: ${name} NaNs`,
    ).toBe(true);
  }
}

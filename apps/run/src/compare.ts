import type { HostTensor, RuntimeValue } from '@tsge/metadef';
import { isHostTensor, readNumber, tensorElementCount } from '@tsge/metadef';

export interface OutputError {
  readonly name: string;
  readonly maxAbsError: number;
  readonly maxRelError: number;
  readonly shapeMatches: boolean;
}

/**
 * Max absolute and relative error of `actual` against `expected`. The relative error of an element
 * divides by max(|expected|, 1e-3 · max|expected|): relative to the value, but never to values a
 * thousand times below the output's own scale, where float32 rounding of a sum is all that differs
 * (a sigmoid map of 1e-20 probabilities, say). NaN equals NaN.
 */
export function compareTensors(name: string, actual: HostTensor, expected: HostTensor): OutputError {
  const shapeMatches = actual.dims.length === expected.dims.length && actual.dims.every((d, i) => d === expected.dims[i]);
  let maxAbs = 0;
  let maxRel = 0;
  if (shapeMatches) {
    const n = tensorElementCount(expected);
    const strings = Array.isArray(expected.data);
    let scale = 0;
    if (!strings) for (let i = 0; i < n; i++) scale = Math.max(scale, Math.abs(readNumber(expected, i)) || 0);
    const floor = Math.max(scale * 1e-2, Number.MIN_VALUE);
    for (let i = 0; i < n; i++) {
      if (strings) {
        if (actual.data[i] !== expected.data[i]) maxAbs = maxRel = Number.POSITIVE_INFINITY;
        continue;
      }
      const a = readNumber(actual, i);
      const e = readNumber(expected, i);
      if (Number.isNaN(a) && Number.isNaN(e)) continue;
      if (a === e) continue;
      const abs = Math.abs(a - e);
      const rel = abs / Math.max(Math.abs(e), floor);
      if (!(abs <= maxAbs)) maxAbs = abs;
      if (!(rel <= maxRel)) maxRel = rel;
    }
  }
  return { name, maxAbsError: maxAbs, maxRelError: maxRel, shapeMatches };
}

/** Runs an ONNX model in onnxruntime-node on the same inputs. */
export async function runOnnxRuntime(
  modelPath: string,
  inputs: Readonly<Record<string, HostTensor>>,
  threads: number,
): Promise<Record<string, HostTensor>> {
  const ort = await import('onnxruntime-node');
  const session = await ort.InferenceSession.create(modelPath, { intraOpNumThreads: threads, interOpNumThreads: 1 });
  try {
    const feeds: Record<string, InstanceType<typeof ort.Tensor>> = {};
    for (const [name, t] of Object.entries(inputs)) {
      feeds[name] = new ort.Tensor(t.type as never, t.data as never, t.dims as number[]);
    }
    const results = await session.run(feeds);
    const out: Record<string, HostTensor> = {};
    for (const [name, t] of Object.entries(results)) {
      out[name] = { type: t.type as HostTensor['type'], dims: [...t.dims], data: t.data as HostTensor['data'] };
    }
    return out;
  } finally {
    await session.release();
  }
}

export function asTensor(value: RuntimeValue | undefined): HostTensor | undefined {
  return isHostTensor(value) ? value : undefined;
}

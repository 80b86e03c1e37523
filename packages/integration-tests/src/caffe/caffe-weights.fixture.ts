// Seeded random weights for Caffe nets, scaled so activations neither vanish nor explode through
// deep stacks (Caffe's own fillers, e.g. gaussian std 0.01, would make every output ~0 and every
// comparison trivial).
import { type BlobValuesFn, initializeCaffemodel } from '@tsge/parser-caffe';

function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

/** Values for each learned blob: weights ~ U(-a, a) with a = sqrt(3/fan_in), biases and the rest small. */
export function scaledValues(seed: number): BlobValuesFn {
  const random = generator(seed);
  return ({ type, index, dims }) => {
    const count = dims.reduce((a, b) => a * b, 1);
    const out = new Float32Array(count);
    if (type === 'BatchNorm') {
      // mean, variance (positive), moving-average factor
      for (let i = 0; i < count; i++) out[i] = index === 0 ? random() - 0.5 : index === 1 ? 0.5 + random() : 2;
      return out;
    }
    if (type === 'Scale' || type === 'Normalize' || type === 'PReLU') {
      for (let i = 0; i < count; i++) out[i] = index === 0 ? 0.5 + random() : random() - 0.5;
      return out;
    }
    const fanIn = dims.length >= 2 ? count / (dims[0] as number) : 0;
    const scale = fanIn > 0 ? Math.sqrt(3 / fanIn) * 1.4 : 0.2;
    for (let i = 0; i < count; i++) out[i] = (2 * random() - 1) * scale;
    return out;
  };
}

/** A caffemodel for the prototxt with seeded scaled random weights. */
export async function randomCaffemodel(prototxt: Uint8Array, seed: number): Promise<Uint8Array> {
  const { caffemodel, diagnostics } = await initializeCaffemodel(prototxt, { seed, values: scaledValues(seed) });
  if (!caffemodel) throw new Error(diagnostics.map((d) => d.message).join('\n'));
  return caffemodel;
}

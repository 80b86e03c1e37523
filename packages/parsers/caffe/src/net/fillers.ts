import type { caffe } from '../generated/caffe.js';

/** A seeded uniform generator on [0, 1) (mulberry32): the same seed gives the same weights. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/**
 * Values for a blob as Caffe's fillers would draw them (constant, uniform, gaussian, positive_unitball,
 * xavier, msra), from a seeded generator instead of Caffe's. Fan-in and fan-out follow Caffe:
 * count / dims[0] and count / dims[1].
 */
export function fillBlob(
  filler: caffe.IFillerParameter | undefined,
  dims: readonly number[],
  random: () => number,
  fallback = 'constant',
): Float32Array {
  const count = dims.reduce((a, b) => a * b, 1);
  const out = new Float32Array(count);
  const type = filler?.type ?? fallback;
  const fanIn = dims.length > 0 && dims[0] ? count / (dims[0] as number) : count;
  const fanOut = dims.length > 1 && dims[1] ? count / (dims[1] as number) : count;
  const norm = filler?.variance_norm ?? 0;
  const n = norm === 1 ? fanOut : norm === 2 ? (fanIn + fanOut) / 2 : fanIn;
  switch (type) {
    case 'uniform': {
      const min = filler?.min ?? 0;
      const max = filler?.max ?? 1;
      for (let i = 0; i < count; i++) out[i] = min + (max - min) * random();
      break;
    }
    case 'gaussian': {
      const mean = filler?.mean ?? 0;
      const std = filler?.std ?? 1;
      for (let i = 0; i < count; i++) out[i] = mean + std * gaussian(random);
      break;
    }
    case 'xavier': {
      const scale = Math.sqrt(3 / Math.max(n, 1));
      for (let i = 0; i < count; i++) out[i] = (2 * random() - 1) * scale;
      break;
    }
    case 'msra': {
      const std = Math.sqrt(2 / Math.max(n, 1));
      for (let i = 0; i < count; i++) out[i] = std * gaussian(random);
      break;
    }
    case 'positive_unitball': {
      const per = dims.length > 0 && dims[0] ? count / (dims[0] as number) : count;
      for (let i = 0; i < count; i++) out[i] = random();
      for (let start = 0; start < count; start += per) {
        let sum = 0;
        for (let i = start; i < start + per; i++) sum += out[i] as number;
        for (let i = start; i < start + per; i++) out[i] = (out[i] as number) / (sum || 1);
      }
      break;
    }
    default:
      out.fill(filler?.value ?? 0);
  }
  return out;
}

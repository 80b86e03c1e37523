// Next-token choice: greedy, or temperature + top-k + top-p sampling from a seeded generator.
export interface SamplingOptions {
  /** 0 picks the most likely token (greedy). */
  readonly temperature: number;
  /** Keep the k most likely tokens (0: all). */
  readonly topK: number;
  /** Keep the smallest set of tokens whose probability reaches p (1: all). */
  readonly topP: number;
  readonly seed: number;
}

/** A small seeded generator (mulberry32) so runs with the same seed pick the same tokens. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

export function argmax(logits: Float32Array): number {
  let best = 0;
  for (let i = 1; i < logits.length; i++) if ((logits[i] as number) > (logits[best] as number)) best = i;
  return best;
}

export function sampler(options: SamplingOptions): (logits: Float32Array) => number {
  if (options.temperature === 0) return argmax;
  const random = seededRandom(options.seed);
  return (logits) => {
    const order = Array.from(logits.keys()).sort((a, b) => (logits[b] as number) - (logits[a] as number) || a - b);
    const kept = options.topK > 0 ? order.slice(0, options.topK) : order;
    const top = logits[kept[0] as number] as number;
    const weights = kept.map((i) => Math.exp(((logits[i] as number) - top) / options.temperature));
    const sum = weights.reduce((a, b) => a + b, 0);
    let count = 0;
    let mass = 0;
    while (count < kept.length && mass < options.topP) mass += (weights[count++] as number) / sum;
    let r = random() * mass;
    for (let i = 0; i < count; i++) {
      r -= (weights[i] as number) / sum;
      if (r <= 0) return kept[i] as number;
    }
    return kept[count - 1] as number;
  };
}

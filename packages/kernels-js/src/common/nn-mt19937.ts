/**
 * MT19937 seeded like numpy's legacy `np.random.seed(int)`, with `random_sample()` doubles, so a
 * seeded training-mode Dropout draws the same mask as the ONNX reference implementation.
 */
export function numpyRandomSample(seed: number): () => number {
  const mt = new Uint32Array(624);
  mt[0] = seed >>> 0;
  for (let i = 1; i < 624; i++) {
    const prev = mt[i - 1] as number;
    const x = prev ^ (prev >>> 30);
    // 1812433253 * x + i in 32-bit arithmetic, split to stay exact
    mt[i] = (((((x & 0xffff0000) >>> 16) * 1812433253) << 16) + (x & 0x0000ffff) * 1812433253 + i) >>> 0;
  }
  let index = 624;
  const next = (): number => {
    if (index >= 624) {
      for (let k = 0; k < 624; k++) {
        const y = ((mt[k] as number) & 0x80000000) | ((mt[(k + 1) % 624] as number) & 0x7fffffff);
        mt[k] = (mt[(k + 397) % 624] as number) ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      index = 0;
    }
    let y = mt[index++] as number;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  };
  return () => {
    const a = next() >>> 5;
    const b = next() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  };
}

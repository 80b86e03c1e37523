// 4-bit blockwise weights for com.microsoft MatMulNBits: each run of `blockSize` values along K of a
// row of W [N, K] is stored as unsigned nibbles (low nibble first) around the default zero point 8,
// with one float scale per block (symmetric: scale = max |w| / 7).
export interface Int4Weight {
  /** [N, blocks, blockSize / 2] */
  readonly packed: Uint8Array;
  /** [N · blocks] */
  readonly scales: Float32Array;
  readonly blocks: number;
}

export function quantizeInt4(w: Float32Array, n: number, k: number, blockSize: number): Int4Weight {
  const blocks = Math.ceil(k / blockSize);
  const blob = blockSize / 2;
  // padding past K stays at the zero point (value 0)
  const packed = new Uint8Array(n * blocks * blob).fill(0x88);
  const scales = new Float32Array(n * blocks);
  for (let row = 0; row < n; row++)
    for (let b = 0; b < blocks; b++) {
      const start = row * k + b * blockSize;
      const end = row * k + Math.min(k, (b + 1) * blockSize);
      let max = 0;
      for (let i = start; i < end; i++) max = Math.max(max, Math.abs(w[i] as number));
      const scale = max / 7;
      scales[row * blocks + b] = scale;
      const out = (row * blocks + b) * blob;
      for (let i = start; i < end; i++) {
        const q = scale === 0 ? 8 : Math.min(15, Math.max(0, Math.round((w[i] as number) / scale) + 8));
        const j = i - start;
        const at = out + (j >> 1);
        packed[at] = j & 1 ? ((packed[at] as number) & 0x0f) | (q << 4) : ((packed[at] as number) & 0xf0) | q;
      }
    }
  return { packed, scales, blocks };
}

/** The float values a quantized weight stands for, [N, K]. */
export function dequantizeInt4(q: Int4Weight, n: number, k: number, blockSize: number): Float32Array {
  const out = new Float32Array(n * k);
  const blob = blockSize / 2;
  for (let row = 0; row < n; row++)
    for (let i = 0; i < k; i++) {
      const b = Math.floor(i / blockSize);
      const j = i % blockSize;
      const byte = q.packed[(row * q.blocks + b) * blob + (j >> 1)] as number;
      out[row * k + i] = ((j & 1 ? byte >> 4 : byte & 0x0f) - 8) * (q.scales[row * q.blocks + b] as number);
    }
  return out;
}

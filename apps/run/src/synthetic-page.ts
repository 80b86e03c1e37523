import type { HostTensor } from '@tsge/metadef';
import { createTensor } from '@tsge/metadef';

/**
 * A synthetic "page": white background with dark horizontal bars shaped like lines of text
 * (short glyph blocks separated by gaps), normalized the way PP-OCR expects
 * ((pixel/255 - mean) / std per channel, NCHW). Returns the tensor and the number of lines drawn.
 */
export function syntheticPage(height: number, width: number, lines: number): { tensor: HostTensor; lines: number } {
  const gray = new Float32Array(height * width).fill(255);
  const lineHeight = Math.max(8, Math.floor(height / (lines * 3)));
  for (let l = 0; l < lines; l++) {
    const top = Math.floor(((l + 0.5) * height) / lines - lineHeight / 2);
    const left = Math.floor(width * 0.1);
    const right = Math.floor(width * (0.55 + (0.35 * ((l * 37) % 10)) / 10));
    for (let x = left; x < right; x++) {
      // glyph-like blocks: 70% ink, gaps between "characters"
      if ((x - left) % lineHeight > lineHeight * 0.7) continue;
      for (let y = top; y < top + lineHeight; y++) gray[y * width + x] = 20;
    }
  }
  const mean = [0.485, 0.456, 0.406];
  const std = [0.229, 0.224, 0.225];
  const t = createTensor('float32', [1, 3, height, width]);
  const data = t.data as Float32Array;
  for (let c = 0; c < 3; c++) {
    const m = mean[c] as number;
    const s = std[c] as number;
    for (let i = 0; i < height * width; i++) data[c * height * width + i] = ((gray[i] as number) / 255 - m) / s;
  }
  return { tensor: t, lines };
}

/** Counts connected regions (4-neighbour) of a probability map above `threshold` with at least `minPixels`. */
export function countRegions(map: Float32Array, height: number, width: number, threshold = 0.3, minPixels = 16): number {
  const seen = new Uint8Array(height * width);
  const stack: number[] = [];
  let regions = 0;
  for (let start = 0; start < map.length; start++) {
    if (seen[start] || !((map[start] as number) > threshold)) continue;
    let size = 0;
    stack.push(start);
    seen[start] = 1;
    while (stack.length) {
      const p = stack.pop() as number;
      size++;
      const y = Math.floor(p / width);
      const x = p - y * width;
      const neighbours = [x > 0 ? p - 1 : -1, x < width - 1 ? p + 1 : -1, y > 0 ? p - width : -1, y < height - 1 ? p + width : -1];
      for (const q of neighbours) {
        if (q >= 0 && !seen[q] && (map[q] as number) > threshold) {
          seen[q] = 1;
          stack.push(q);
        }
      }
    }
    if (size >= minPixels) regions++;
  }
  return regions;
}

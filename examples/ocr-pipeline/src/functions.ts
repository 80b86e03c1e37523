// The pipeline's functions (FlowFunctionV1), referenced by module specifier and export name.
import { readFileSync } from 'node:fs';
import type { FlowFunctionV1, FlowValue } from '@tsge/dflow';
import type { HostTensor } from '@tsge/metadef';

const tensor = (value: FlowValue | undefined, what: string): HostTensor => {
  if (value === undefined || value instanceof Uint8Array) throw new Error(`${what} must be a tensor`);
  return value;
};

/** Page image, uint8 [H, W, 3] (RGB) → the detector's input: float32 [1, 3, H, W] with ImageNet mean/std. */
export const detPreprocess: FlowFunctionV1 = {
  specVersion: 'v1',
  proc([image]) {
    const t = tensor(image, 'the page');
    const [h, w, c] = t.dims as [number, number, number];
    if (t.type !== 'uint8' || t.dims.length !== 3 || c !== 3)
      throw new Error(`the page must be uint8 [H, W, 3], got ${t.type} [${t.dims.join(',')}]`);
    const mean = [0.485, 0.456, 0.406];
    const std = [0.229, 0.224, 0.225];
    const src = t.data as Uint8Array;
    const out = new Float32Array(3 * h * w);
    for (let ch = 0; ch < 3; ch++) {
      const m = mean[ch] as number;
      const s = std[ch] as number;
      const base = ch * h * w;
      for (let i = 0; i < h * w; i++) out[base + i] = ((src[i * 3 + ch] as number) / 255 - m) / s;
    }
    return [{ type: 'float32', dims: [1, 3, h, w], data: out }];
  },
};

export interface Box {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

/**
 * DB post-processing: threshold the probability map, take connected regions, keep those whose
 * mean probability passes `boxThreshold`, grow each box by the unclip distance (area × ratio /
 * perimeter, as DB does), in reading order.
 */
export function dbBoxes(
  map: Float32Array,
  h: number,
  w: number,
  options: { threshold: number; boxThreshold: number; unclipRatio: number; minSize: number },
): Box[] {
  const label = new Int32Array(h * w);
  const boxes: (Box & { score: number })[] = [];
  const stack: number[] = [];
  let next = 0;
  for (let start = 0; start < h * w; start++) {
    if (label[start] !== 0 || !((map[start] as number) > options.threshold)) continue;
    next++;
    let x0 = w;
    let y0 = h;
    let x1 = -1;
    let y1 = -1;
    let sum = 0;
    let count = 0;
    label[start] = next;
    stack.push(start);
    while (stack.length > 0) {
      const p = stack.pop() as number;
      const y = (p / w) | 0;
      const x = p - y * w;
      sum += map[p] as number;
      count++;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      for (const q of [x > 0 ? p - 1 : -1, x < w - 1 ? p + 1 : -1, y > 0 ? p - w : -1, y < h - 1 ? p + w : -1]) {
        if (q < 0 || label[q] !== 0 || !((map[q] as number) > options.threshold)) continue;
        label[q] = next;
        stack.push(q);
      }
    }
    const bw = x1 - x0 + 1;
    const bh = y1 - y0 + 1;
    if (Math.min(bw, bh) < options.minSize || sum / count < options.boxThreshold) continue;
    const d = (bw * bh * options.unclipRatio) / (2 * (bw + bh));
    boxes.push({
      x0: Math.max(0, Math.floor(x0 - d)),
      y0: Math.max(0, Math.floor(y0 - d)),
      x1: Math.min(w - 1, Math.ceil(x1 + d)),
      y1: Math.min(h - 1, Math.ceil(y1 + d)),
      score: sum / count,
    });
  }
  return boxes.sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0);
}

/** Crops `box` from an RGB image and resizes it (bilinear) to height `height`, padding or squeezing to `width`; normalised to [-1, 1] as PP-OCR's cls and rec expect. */
export function cropForRecognition(image: HostTensor, box: Box, height: number, width: number): HostTensor {
  const [ih, iw] = image.dims as [number, number];
  const src = image.data as Uint8Array;
  const bw = box.x1 - box.x0 + 1;
  const bh = box.y1 - box.y0 + 1;
  const scaled = Math.min(width, Math.max(1, Math.ceil((height * bw) / bh)));
  const out = new Float32Array(3 * height * width); // padding stays 0, the normalised mid-grey PP-OCR pads with
  for (let y = 0; y < height; y++) {
    const sy = Math.min(ih - 1, Math.max(0, box.y0 + ((y + 0.5) * bh) / height - 0.5));
    const y0 = Math.floor(sy);
    const y1 = Math.min(ih - 1, y0 + 1);
    const fy = sy - y0;
    for (let x = 0; x < scaled; x++) {
      const sx = Math.min(iw - 1, Math.max(0, box.x0 + ((x + 0.5) * bw) / scaled - 0.5));
      const x0 = Math.floor(sx);
      const x1 = Math.min(iw - 1, x0 + 1);
      const fx = sx - x0;
      for (let c = 0; c < 3; c++) {
        const p = (yy: number, xx: number): number => src[(yy * iw + xx) * 3 + c] as number;
        const v = (1 - fy) * ((1 - fx) * p(y0, x0) + fx * p(y0, x1)) + fy * ((1 - fx) * p(y1, x0) + fx * p(y1, x1));
        out[c * height * width + y * width + x] = (v / 255 - 0.5) / 0.5;
      }
    }
  }
  return { type: 'float32', dims: [1, 3, height, width], data: out };
}

/**
 * Inputs: the detector's probability map [1, 1, H, W] and the page [H, W, 3]. Sends one message
 * per text line (segments of the page's transaction, in reading order): the crop for cls
 * (48×192) and the crop for rec (48×320).
 */
export const dbPostprocess = (): FlowFunctionV1 => {
  let options = { threshold: 0.3, boxThreshold: 0.6, unclipRatio: 1.5, minSize: 3 };
  return {
    specVersion: 'v1',
    init(params) {
      options = { ...options, ...(params as Partial<typeof options>) };
    },
    proc([probability, image], ctx) {
      const map = tensor(probability, 'the probability map');
      const page = tensor(image, 'the page');
      const [, , h, w] = map.dims as [number, number, number, number];
      for (const box of dbBoxes(map.data as Float32Array, h, w, options))
        ctx.emit([cropForRecognition(page, box, 48, 192), cropForRecognition(page, box, 48, 320)]);
      return undefined;
    },
  };
};

/** Inputs: cls probabilities [1, 2] and the rec crop; turns the crop by 180° when cls says so with confidence. */
export const rotateIfNeeded = (): FlowFunctionV1 => {
  let threshold = 0.9;
  return {
    specVersion: 'v1',
    init(params) {
      threshold = Number(params.threshold ?? threshold);
    },
    proc([cls, crop]) {
      const p = tensor(cls, 'the cls output').data as Float32Array;
      const t = tensor(crop, 'the crop');
      if (!((p[1] as number) > (p[0] as number) && (p[1] as number) > threshold)) return [t];
      const [, c, h, w] = t.dims as [number, number, number, number];
      const src = t.data as Float32Array;
      const out = new Float32Array(src.length);
      for (let ch = 0; ch < c; ch++)
        for (let y = 0; y < h; y++)
          for (let x = 0; x < w; x++) out[(ch * h + y) * w + x] = src[(ch * h + (h - 1 - y)) * w + (w - 1 - x)] as number;
      return [{ type: 'float32', dims: t.dims, data: out }];
    },
  };
};

/** Greedy CTC decoding of rec's output [1, T, classes]: best class per step, repeats merged, blanks (0) dropped. */
export function ctcGreedy(probabilities: Float32Array, steps: number, classes: number, keys: readonly string[]): string {
  let text = '';
  let previous = -1;
  for (let t = 0; t < steps; t++) {
    let best = 0;
    let bestValue = Number.NEGATIVE_INFINITY;
    for (let k = 0; k < classes; k++) {
      const v = probabilities[t * classes + k] as number;
      if (v > bestValue) {
        bestValue = v;
        best = k;
      }
    }
    if (best !== 0 && best !== previous) text += keys[best - 1] ?? '';
    previous = best;
  }
  return text;
}

/** rec's output → the line's text as UTF-8 bytes; `params.keysPath` is PP-OCR's `ppocr_keys_v1.txt` (a space is the last class). */
export const ctcDecode = (): FlowFunctionV1 => {
  let keys: string[] = [];
  return {
    specVersion: 'v1',
    init(params) {
      const lines = readFileSync(String(params.keysPath), 'utf8').split(/\r?\n/);
      if (lines[lines.length - 1] === '') lines.pop();
      keys = [...lines, ' '];
    },
    proc([probabilities]) {
      const t = tensor(probabilities, 'the rec output');
      const [, steps, classes] = t.dims as [number, number, number];
      return [new TextEncoder().encode(ctcGreedy(t.data as Float32Array, steps, classes, keys))];
    },
  };
};

/** tsge::DetectionOutput: Caffe SSD's box decoding, per-class NMS and keep_top_k (see the op definition). */
import { type KernelV1, TSGE_DOMAIN, createTensor } from '@tsge/metadef';
import { DETECTION_OUTPUT, type DetectionOutputAttrs, detectionOutputLayout, readDetectionOutputAttrs } from '@tsge/ops/kernel-support';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { readFloats } from '../common/nn-float-io.js';
import { defineKernel } from '../define.js';

type Floats = ArrayLike<number>;

/** Decodes prior `p`'s offsets at `l` into `out` (xmin, ymin, xmax, ymax), in float32 as Caffe does. */
function decodeBox(
  a: DetectionOutputAttrs,
  prior: Floats,
  p: number,
  variances: number,
  loc: Floats,
  l: number,
  out: Float32Array,
  o: number,
) {
  const [x0, y0, x1, y1] = [prior[p] as number, prior[p + 1] as number, prior[p + 2] as number, prior[p + 3] as number];
  const v = a.varianceEncodedInTarget ? [1, 1, 1, 1] : [0, 1, 2, 3].map((k) => prior[variances + p + k] as number);
  const d = [0, 1, 2, 3].map((k) => (v[k] as number) * (loc[l + k] as number));
  const [d0, d1, d2, d3] = d as [number, number, number, number];
  const w = x1 - x0;
  const h = y1 - y0;
  if (a.codeType === 'CORNER') {
    out.set([x0 + d0, y0 + d1, x1 + d2, y1 + d3], o);
  } else if (a.codeType === 'CORNER_SIZE') {
    out.set([x0 + d0 * w, y0 + d1 * h, x1 + d2 * w, y1 + d3 * h], o);
  } else {
    const cx = d0 * w + (x0 + x1) / 2;
    const cy = d1 * h + (y0 + y1) / 2;
    const bw = Math.exp(d2) * w;
    const bh = Math.exp(d3) * h;
    out.set([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], o);
  }
}

function boxArea(b: Float32Array, i: number): number {
  const w = (b[i + 2] as number) - (b[i] as number);
  const h = (b[i + 3] as number) - (b[i + 1] as number);
  return w < 0 || h < 0 ? 0 : w * h;
}

/** Caffe's JaccardOverlap of normalized boxes i and j (offsets into `b`). */
function overlap(b: Float32Array, i: number, j: number): number {
  const ix0 = Math.max(b[i] as number, b[j] as number);
  const iy0 = Math.max(b[i + 1] as number, b[j + 1] as number);
  const ix1 = Math.min(b[i + 2] as number, b[j + 2] as number);
  const iy1 = Math.min(b[i + 3] as number, b[j + 3] as number);
  if (ix1 < ix0 || iy1 < iy0) return 0;
  const inter = (ix1 - ix0) * (iy1 - iy0);
  return inter / (boxArea(b, i) + boxArea(b, j) - inter);
}

/** Caffe's ApplyNMSFast: candidates above the threshold by score (stable), top_k of them, greedy IoU with eta. */
function nms(
  a: DetectionOutputAttrs,
  boxes: Float32Array,
  boxBase: number,
  scores: Floats,
  scoreAt: (p: number) => number,
  priors: number,
): number[] {
  const candidates: number[] = [];
  for (let p = 0; p < priors; p++) if ((scores[scoreAt(p)] as number) > a.confidenceThreshold) candidates.push(p);
  candidates.sort((p, q) => (scores[scoreAt(q)] as number) - (scores[scoreAt(p)] as number) || p - q);
  if (a.topK > -1 && a.topK < candidates.length) candidates.length = a.topK;
  const kept: number[] = [];
  let threshold = a.nmsThreshold;
  for (const p of candidates) {
    let keep = true;
    for (const k of kept) {
      // NaN (two empty boxes) suppresses, as in Caffe
      if (!(overlap(boxes, boxBase + p * 4, boxBase + k * 4) <= threshold)) {
        keep = false;
        break;
      }
    }
    if (keep) {
      kept.push(p);
      if (a.eta < 1 && threshold > 0.5) threshold *= a.eta;
    }
  }
  return kept;
}

/** Rows (image, label, score, box) of one image, labels ascending, each label's boxes by score. */
function detectImage(
  a: DetectionOutputAttrs,
  image: number,
  layout: { priors: number; locClasses: number },
  boxes: Float32Array,
  conf: Floats,
): number[][] {
  const { priors, locClasses } = layout;
  const confBase = image * priors * a.numClasses;
  const perLabel: { label: number; prior: number; score: number }[][] = [];
  let total = 0;
  for (let c = 0; c < a.numClasses; c++) {
    if (c === a.backgroundLabelId) continue;
    const locClass = a.shareLocation ? 0 : c;
    const boxBase = (image * locClasses + locClass) * priors * 4;
    const kept = nms(a, boxes, boxBase, conf, (p) => confBase + p * a.numClasses + c, priors);
    perLabel.push(kept.map((p) => ({ label: c, prior: p, score: conf[confBase + p * a.numClasses + c] as number })));
    total += kept.length;
  }
  let chosen = perLabel.flat();
  if (a.keepTopK > -1 && total > a.keepTopK) {
    const best = [...chosen].sort((x, y) => y.score - x.score).slice(0, a.keepTopK);
    chosen = best.sort((x, y) => x.label - y.label);
  }
  return chosen.map(({ label, prior, score }) => {
    const at = (image * locClasses + (a.shareLocation ? 0 : label)) * priors * 4 + prior * 4;
    return [image, label, score, ...boxes.subarray(at, at + 4)];
  });
}

export const detectionOutputKernel: KernelV1 = defineKernel({
  opType: DETECTION_OUTPUT,
  domain: TSGE_DOMAIN,
  compute(ctx) {
    const a = readDetectionOutputAttrs(ctx.attrs, (reason) => {
      throw kernelError(ctx, reason);
    });
    const locT = requireTensor(ctx, 0);
    const confT = requireTensor(ctx, 1);
    const priorT = requireTensor(ctx, 2);
    const layout = detectionOutputLayout(a, locT.dims, confT.dims, priorT.dims);
    if (typeof layout === 'string') throw kernelError(ctx, layout);
    const { images, priors, locClasses } = layout;
    const loc = readFloats(locT);
    const conf = readFloats(confT);
    const prior = readFloats(priorT);
    const boxes = new Float32Array(images * locClasses * priors * 4);
    for (let n = 0; n < images; n++) {
      const priorBase = priorT.dims[0] === 1 ? 0 : n * (priorT.dims[1] as number) * priors * 4;
      for (let c = 0; c < locClasses; c++) {
        // Caffe does not decode the background's own boxes
        if (!a.shareLocation && c === a.backgroundLabelId) continue;
        for (let p = 0; p < priors; p++) {
          const o = ((n * locClasses + c) * priors + p) * 4;
          decodeBox(a, prior, priorBase + p * 4, priors * 4, loc, ((n * priors + p) * locClasses + c) * 4, boxes, o);
        }
      }
    }
    let rows: number[][] = [];
    for (let n = 0; n < images; n++) rows.push(...detectImage(a, n, layout, boxes, conf));
    // Caffe's answer when nothing is detected: one row per image, all -1 but the image index
    if (rows.length === 0) rows = Array.from({ length: images }, (_, n) => [n, -1, -1, -1, -1, -1, -1]);
    ctx.setOutput(0, createTensor('float32', [1, 1, rows.length, 7], Float32Array.from(rows.flat())));
  },
});

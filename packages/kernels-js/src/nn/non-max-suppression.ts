/** NonMaxSuppression: greedy per (batch, class) selection by score with IoU suppression. */
import { type KernelV1, createTensor } from '@tsge/metadef';
import { hasInput, readFloats } from '../common/nn-float-io.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

function iou(boxes: ArrayLike<number>, a: number, b: number, centerPoint: boolean): number {
  let ay1: number;
  let ax1: number;
  let ay2: number;
  let ax2: number;
  let by1: number;
  let bx1: number;
  let by2: number;
  let bx2: number;
  if (centerPoint) {
    const [axc, ayc, aw, ah] = [boxes[a * 4] as number, boxes[a * 4 + 1] as number, boxes[a * 4 + 2] as number, boxes[a * 4 + 3] as number];
    const [bxc, byc, bw, bh] = [boxes[b * 4] as number, boxes[b * 4 + 1] as number, boxes[b * 4 + 2] as number, boxes[b * 4 + 3] as number];
    ax1 = axc - aw / 2;
    ax2 = axc + aw / 2;
    ay1 = ayc - ah / 2;
    ay2 = ayc + ah / 2;
    bx1 = bxc - bw / 2;
    bx2 = bxc + bw / 2;
    by1 = byc - bh / 2;
    by2 = byc + bh / 2;
  } else {
    // corners may come in either order
    ay1 = Math.min(boxes[a * 4] as number, boxes[a * 4 + 2] as number);
    ay2 = Math.max(boxes[a * 4] as number, boxes[a * 4 + 2] as number);
    ax1 = Math.min(boxes[a * 4 + 1] as number, boxes[a * 4 + 3] as number);
    ax2 = Math.max(boxes[a * 4 + 1] as number, boxes[a * 4 + 3] as number);
    by1 = Math.min(boxes[b * 4] as number, boxes[b * 4 + 2] as number);
    by2 = Math.max(boxes[b * 4] as number, boxes[b * 4 + 2] as number);
    bx1 = Math.min(boxes[b * 4 + 1] as number, boxes[b * 4 + 3] as number);
    bx2 = Math.max(boxes[b * 4 + 1] as number, boxes[b * 4 + 3] as number);
  }
  const ih = Math.max(0, Math.min(ay2, by2) - Math.max(ay1, by1));
  const iw = Math.max(0, Math.min(ax2, bx2) - Math.max(ax1, bx1));
  const inter = ih * iw;
  const union = (ay2 - ay1) * (ax2 - ax1) + (by2 - by1) * (bx2 - bx1) - inter;
  return union <= 0 ? 0 : inter / union;
}

export const nonMaxSuppressionKernels: readonly KernelV1[] = [
  defineKernel({
    opType: 'NonMaxSuppression',
    compute(ctx) {
      const boxesT = requireTensor(ctx, 0);
      const scoresT = requireTensor(ctx, 1);
      if (boxesT.dims.length !== 3 || boxesT.dims[2] !== 4 || scoresT.dims.length !== 3)
        throw kernelError(ctx, `boxes [${boxesT.dims}] / scores [${scoresT.dims}] have the wrong shape`);
      const batches = boxesT.dims[0] as number;
      const spatial = boxesT.dims[1] as number;
      const classes = scoresT.dims[1] as number;
      if (scoresT.dims[0] !== batches || scoresT.dims[2] !== spatial)
        throw kernelError(ctx, 'boxes and scores disagree on batch or box count');
      const boxes = readFloats(boxesT);
      const scores = readFloats(scoresT);
      const maxOut = hasInput(ctx, 2) ? Number(requireTensor(ctx, 2).data[0] ?? 0) : 0;
      const iouThreshold = hasInput(ctx, 3) ? (readFloats(requireTensor(ctx, 3))[0] ?? 0) : 0;
      const scoreThreshold = hasInput(ctx, 4)
        ? (readFloats(requireTensor(ctx, 4))[0] ?? Number.NEGATIVE_INFINITY)
        : Number.NEGATIVE_INFINITY;
      const centerPoint = ctx.attrs.int('center_point_box', 0) === 1;
      const selected: number[] = [];
      for (let b = 0; b < batches; b++)
        for (let c = 0; c < classes; c++) {
          if (maxOut <= 0) continue;
          const base = (b * classes + c) * spatial;
          const candidates: number[] = [];
          for (let i = 0; i < spatial; i++) if ((scores[base + i] as number) > scoreThreshold) candidates.push(i);
          candidates.sort((p, q) => (scores[base + q] as number) - (scores[base + p] as number) || p - q);
          const kept: number[] = [];
          const boxBase = b * spatial;
          for (const i of candidates) {
            if (kept.length >= maxOut) break;
            let keep = true;
            for (const j of kept) {
              if (iou(boxes, boxBase + i, boxBase + j, centerPoint) > iouThreshold) {
                keep = false;
                break;
              }
            }
            if (keep) {
              kept.push(i);
              selected.push(b, c, i);
            }
          }
        }
      ctx.setOutput(
        0,
        createTensor(
          'int64',
          [selected.length / 3, 3],
          BigInt64Array.from(selected, (v) => BigInt(v)),
        ),
      );
    },
  }),
];

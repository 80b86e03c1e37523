import type { LayerContext } from '../convert/context.js';
import { type LayerConverter, has, num } from './shared.js';

/** SSD's aspect-ratio list: 1 first, each given ratio once, and its inverse when flipping. */
function aspectRatios(given: readonly number[], flip: boolean): number[] {
  const out = [1];
  for (const ar of given) {
    if (out.some((r) => Math.abs(r - ar) < 1e-6)) continue;
    out.push(ar);
    if (flip) out.push(1 / ar);
  }
  return out;
}

function boxSizes(ctx: LayerContext): [number, number][] {
  const p = ctx.layer.params.prior_box_param ?? {};
  const minSizes = (p.min_size ?? []).map(Number);
  const maxSizes = (p.max_size ?? []).map(Number);
  if (minSizes.length === 0) ctx.fail('min_size is required');
  if (maxSizes.length > 0 && maxSizes.length !== minSizes.length) ctx.fail('max_size needs one value per min_size');
  const ratios = aspectRatios((p.aspect_ratio ?? []).map(Number), p.flip ?? true);
  const sizes: [number, number][] = [];
  minSizes.forEach((min, i) => {
    if (!(min > 0)) ctx.fail(`min_size ${min} must be positive`);
    sizes.push([min, min]);
    const max = maxSizes[i];
    if (max !== undefined) {
      if (!(max > min)) ctx.fail(`max_size ${max} must be above min_size ${min}`);
      const side = Math.sqrt(min * max);
      sizes.push([side, side]);
    }
    for (const ar of ratios) {
      if (Math.abs(ar - 1) < 1e-6) continue;
      sizes.push([min * Math.sqrt(ar), min / Math.sqrt(ar)]);
    }
  });
  return sizes;
}

/**
 * PriorBox: the anchors depend only on the shapes of the feature map (bottom 0) and the image
 * (bottom 1), so they are computed here and stored as a constant [1, 2, H*W*priors*4]: boxes, then
 * their variances.
 */
export const priorBoxLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.prior_box_param ?? {};
  const feature = ctx.input(0);
  const image = ctx.input(1);
  if (feature.shape.length !== 4 || image.shape.length !== 4) ctx.fail('needs 4-D bottoms (feature map, image)');
  const [layerH, layerW] = feature.shape.slice(2) as [number, number];
  let imgH = image.shape[2] as number;
  let imgW = image.shape[3] as number;
  if (has(p, 'img_size')) imgH = imgW = num(p.img_size, 0);
  else if (has(p, 'img_h') || has(p, 'img_w')) {
    imgH = num(p.img_h, 0);
    imgW = num(p.img_w, 0);
  }
  let stepH = imgH / layerH;
  let stepW = imgW / layerW;
  if (has(p, 'step')) stepH = stepW = num(p.step, 0);
  else if (has(p, 'step_h') || has(p, 'step_w')) {
    stepH = num(p.step_h, 0);
    stepW = num(p.step_w, 0);
  }
  if (!(imgH > 0 && imgW > 0 && stepH > 0 && stepW > 0)) ctx.fail('image size and step must be positive');
  const offset = p.offset ?? 0.5;
  const sizes = boxSizes(ctx);
  const variance = (p.variance ?? []).map(Number);
  if (variance.length !== 0 && variance.length !== 1 && variance.length !== 4) ctx.fail('variance needs 1 or 4 values');
  const variances = variance.length === 4 ? variance : new Array(4).fill(variance[0] ?? 0.1);
  const count = layerH * layerW * sizes.length * 4;
  const data = new Float32Array(2 * count);
  let k = 0;
  for (let h = 0; h < layerH; h++) {
    for (let w = 0; w < layerW; w++) {
      const cx = (w + offset) * stepW;
      const cy = (h + offset) * stepH;
      for (const [bw, bh] of sizes) {
        data[k++] = (cx - bw / 2) / imgW;
        data[k++] = (cy - bh / 2) / imgH;
        data[k++] = (cx + bw / 2) / imgW;
        data[k++] = (cy + bh / 2) / imgH;
      }
    }
  }
  if (p.clip) for (let i = 0; i < count; i++) data[i] = Math.min(Math.max(data[i] as number, 0), 1);
  for (let i = 0; i < count; i++) data[count + i] = variances[i % 4] as number;
  const shape = [1, 2, count];
  return [{ value: ctx.constant(data, shape, 'priors'), shape }];
};

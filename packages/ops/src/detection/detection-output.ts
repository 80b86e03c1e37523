import { type OpDefinitionV1, InferenceError, TSGE_DOMAIN } from '@tsge/metadef';
import { defineOp, param } from '../define.js';

/**
 * tsge::DetectionOutput: SSD's last stage (Caffe's DetectionOutput layer). Box offsets `loc`
 * ([N, P·L·4], L = 1 when share_location else num_classes) are decoded against the priors
 * ([1 or N, 2, P·4]: boxes then variances, as PriorBox writes them; [., 1, P·4] will do with
 * variance_encoded_in_target); per image and per class
 * other than the background, the boxes scoring above confidence_threshold in `conf` ([N, P·C],
 * probabilities) go through greedy NMS (top_k candidates, IoU nms_threshold, adaptive eta); then
 * keep_top_k over all classes of the image. Output [1, 1, D, 7] rows (image, label, score, xmin,
 * ymin, xmax, ymax), image by image, labels ascending, scores descending; D is data-dependent.
 * With no detection at all, one row per image of [image, -1, -1, -1, -1, -1, -1] (Caffe's).
 */
export const DETECTION_OUTPUT = 'DetectionOutput';

/** Caffe's threshold when none is set (every score passes). */
const FLT_MAX = 3.4028234663852886e38;

/** Box encodings, by their Caffe names (PriorBoxParameter.CodeType). */
export const DETECTION_CODE_TYPES = ['CORNER', 'CENTER_SIZE', 'CORNER_SIZE'] as const;
export type DetectionCodeType = (typeof DETECTION_CODE_TYPES)[number];

/** The node's attributes, checked; one reader for the inference and the kernels. */
export interface DetectionOutputAttrs {
  readonly numClasses: number;
  readonly shareLocation: boolean;
  readonly backgroundLabelId: number;
  readonly nmsThreshold: number;
  readonly topK: number;
  readonly eta: number;
  readonly keepTopK: number;
  readonly confidenceThreshold: number;
  readonly codeType: DetectionCodeType;
  readonly varianceEncodedInTarget: boolean;
}

export function readDetectionOutputAttrs(
  attrs: {
    int(name: string, fallback?: number): number;
    float(name: string, fallback?: number): number;
    string(name: string, fallback?: string): string;
  },
  fail: (reason: string) => never,
): DetectionOutputAttrs {
  const numClasses = attrs.int('num_classes', 0);
  if (!Number.isInteger(numClasses) || numClasses < 1 || numClasses > 100_000) fail(`num_classes ${numClasses} is outside [1, 100000]`);
  const backgroundLabelId = attrs.int('background_label_id', 0);
  if (!Number.isInteger(backgroundLabelId) || backgroundLabelId < -1 || backgroundLabelId >= numClasses)
    fail(`background_label_id ${backgroundLabelId} is outside [-1, num_classes)`);
  const nmsThreshold = attrs.float('nms_threshold', 0.3);
  if (!(nmsThreshold > 0 && nmsThreshold <= 1)) fail(`nms_threshold ${nmsThreshold} is outside (0, 1]`);
  const eta = attrs.float('eta', 1);
  if (!(eta > 0 && eta <= 1)) fail(`eta ${eta} is outside (0, 1]`);
  const topK = attrs.int('top_k', -1);
  const keepTopK = attrs.int('keep_top_k', -1);
  if (!Number.isInteger(topK) || topK < -1) fail(`top_k ${topK} must be -1 (all) or a count`);
  if (!Number.isInteger(keepTopK) || keepTopK < -1) fail(`keep_top_k ${keepTopK} must be -1 (all) or a count`);
  const confidenceThreshold = attrs.float('confidence_threshold', -FLT_MAX);
  if (Number.isNaN(confidenceThreshold)) fail('confidence_threshold is NaN');
  const codeType = attrs.string('code_type', 'CORNER');
  if (!(DETECTION_CODE_TYPES as readonly string[]).includes(codeType))
    fail(`code_type ${JSON.stringify(codeType).slice(0, 40)} is not one of ${DETECTION_CODE_TYPES.join(', ')}`);
  return {
    numClasses,
    shareLocation: attrs.int('share_location', 1) !== 0,
    backgroundLabelId,
    nmsThreshold,
    topK,
    eta,
    keepTopK,
    confidenceThreshold,
    codeType: codeType as DetectionCodeType,
    varianceEncodedInTarget: attrs.int('variance_encoded_in_target', 0) !== 0,
  };
}

/** Images, priors and location classes of the inputs' shapes, or the reason they do not fit. */
export function detectionOutputLayout(
  a: DetectionOutputAttrs,
  loc: readonly number[],
  conf: readonly number[],
  priors: readonly number[],
): { images: number; priors: number; locClasses: number } | string {
  const count = (dims: readonly number[]) => dims.slice(1).reduce((x, y) => x * y, 1);
  if (loc.length < 2 || conf.length < 2) return `loc [${loc}] and conf [${conf}] need a batch axis and one more`;
  // boxes then variances; the boxes alone (OpenCV's layout) when the variances are in the targets
  const channels = a.varianceEncodedInTarget ? [1, 2] : [2];
  if (priors.length !== 3 || !channels.includes(priors[1] as number) || (priors[2] as number) % 4 !== 0)
    return `priors [${priors}] must be [1 or N, ${channels.join(' or ')}, 4·P] (boxes${a.varianceEncodedInTarget ? '' : ' then variances'})`;
  const images = loc[0] as number;
  const numPriors = (priors[2] as number) / 4;
  const locClasses = a.shareLocation ? 1 : a.numClasses;
  if (conf[0] !== images) return `conf has ${conf[0]} images, loc ${images}`;
  if (priors[0] !== 1 && priors[0] !== images) return `priors have ${priors[0]} images, loc ${images}`;
  if (count(loc) !== numPriors * locClasses * 4) return `loc [${loc}] does not hold ${numPriors} priors × ${locClasses} classes × 4`;
  if (count(conf) !== numPriors * a.numClasses) return `conf [${conf}] does not hold ${numPriors} priors × ${a.numClasses} classes`;
  return { images, priors: numPriors, locClasses };
}

export const detectionOutputDefinition: OpDefinitionV1 = defineOp({
  type: DETECTION_OUTPUT,
  domain: TSGE_DOMAIN,
  sinceVersion: 1,
  doc: 'SSD detection output: decode boxes against priors, per-class NMS, keep_top_k; rows (image, label, score, xmin, ymin, xmax, ymax).',
  inputs: [param.required('loc', 'float32'), param.required('conf', 'float32'), param.required('priors', 'float32')],
  outputs: [param.required('detections', 'float32')],
  attributes: [
    { name: 'num_classes', kind: 'int', required: true },
    { name: 'share_location', kind: 'int', default: { kind: 'int', value: 1 } },
    { name: 'background_label_id', kind: 'int', default: { kind: 'int', value: 0 } },
    { name: 'nms_threshold', kind: 'float', default: { kind: 'float', value: 0.3 } },
    { name: 'top_k', kind: 'int', default: { kind: 'int', value: -1 } },
    { name: 'eta', kind: 'float', default: { kind: 'float', value: 1 } },
    { name: 'keep_top_k', kind: 'int', default: { kind: 'int', value: -1 } },
    { name: 'confidence_threshold', kind: 'float', default: { kind: 'float', value: -FLT_MAX } },
    { name: 'code_type', kind: 'string', default: { kind: 'string', value: 'CORNER' } },
    { name: 'variance_encoded_in_target', kind: 'int', default: { kind: 'int', value: 0 } },
  ],
  infer(ctx) {
    const fail = (reason: string): never => {
      throw new InferenceError(`${DETECTION_OUTPUT} ${ctx.nodeName}: ${reason}`);
    };
    const a = readDetectionOutputAttrs(ctx.attrs, fail);
    const shapes = [0, 1, 2].map((i) => ctx.input(i)?.shape);
    if (shapes.every((s) => s?.every((d) => typeof d === 'number' && d >= 0))) {
      const layout = detectionOutputLayout(a, ...(shapes as [number[], number[], number[]]));
      if (typeof layout === 'string') fail(layout);
    }
    ctx.setOutput(0, { dtype: 'float32', shape: [1, 1, ctx.newSymbol('detections'), 7] });
  },
});

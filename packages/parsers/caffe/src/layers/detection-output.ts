import { TSGE_DOMAIN, attr } from '@tsge/metadef';
import { caffe } from '../generated/caffe.js';
import { type LayerConverter, has, num } from './shared.js';

const CODE_TYPES: Readonly<Record<number, string>> = {
  [caffe.PriorBoxParameter.CodeType.CORNER]: 'CORNER',
  [caffe.PriorBoxParameter.CodeType.CENTER_SIZE]: 'CENTER_SIZE',
  [caffe.PriorBoxParameter.CodeType.CORNER_SIZE]: 'CORNER_SIZE',
};

/**
 * SSD's DetectionOutput (bottoms: loc, conf, priors) → tsge::DetectionOutput, whose definition in
 * @tsge/ops checks the bottoms' sizes against num_classes and the priors. Its output [1, 1, D, 7]
 * has a row count known only at run time.
 */
export const detectionOutputLayer: LayerConverter = (ctx) => {
  const p = ctx.layer.params.detection_output_param ?? {};
  if (ctx.inputs.length !== 3) ctx.fail(`needs 3 bottoms (loc, conf, priors), has ${ctx.inputs.length}`);
  if (!has(p, 'num_classes')) ctx.fail('num_classes is required');
  if (p.normalized_bbox === false) ctx.fail('normalized_bbox: false (pixel-coordinate priors) is not supported');
  const numClasses = num(p.num_classes, 0);
  const background = num(p.background_label_id, 0);
  if (!(numClasses >= 1)) ctx.fail(`num_classes ${numClasses} must be positive`);
  if (!(background >= -1 && background < numClasses)) ctx.fail(`background_label_id ${background} is outside [-1, num_classes)`);
  const nms = p.nms_param ?? {};
  const nmsThreshold = nms.nms_threshold ?? 0.3;
  const eta = nms.eta ?? 1;
  if (!(nmsThreshold > 0 && nmsThreshold <= 1)) ctx.fail(`nms_param.nms_threshold ${nmsThreshold} is outside (0, 1]`);
  if (!(eta > 0 && eta <= 1)) ctx.fail(`nms_param.eta ${eta} is outside (0, 1]`);
  const topK = has(nms, 'top_k') ? num(nms.top_k, -1) : -1;
  const keepTopK = num(p.keep_top_k, -1);
  if (topK < -1 || keepTopK < -1) ctx.fail('top_k and keep_top_k must be -1 (all) or a count');
  const codeType = CODE_TYPES[num(p.code_type, caffe.PriorBoxParameter.CodeType.CORNER)];
  if (!codeType) ctx.fail(`code_type ${p.code_type} is not CORNER, CENTER_SIZE or CORNER_SIZE`);
  const attrs = {
    num_classes: attr.int(numClasses),
    share_location: attr.int((p.share_location ?? true) ? 1 : 0),
    background_label_id: attr.int(background),
    nms_threshold: attr.float(nmsThreshold),
    top_k: attr.int(topK),
    eta: attr.float(eta),
    keep_top_k: attr.int(keepTopK),
    code_type: attr.string(codeType),
    variance_encoded_in_target: attr.int(p.variance_encoded_in_target ? 1 : 0),
    // unset: every score passes (Caffe's -FLT_MAX, the op's default)
    ...(has(p, 'confidence_threshold') ? { confidence_threshold: attr.float(num(p.confidence_threshold, 0)) } : {}),
  };
  const [loc, conf, priors] = [ctx.input(0), ctx.input(1), ctx.input(2)];
  const shape = [1, 1, -1, 7];
  return [{ value: ctx.op('DetectionOutput', [loc.value, conf.value, priors.value], shape, attrs, 'float32', TSGE_DOMAIN), shape }];
};

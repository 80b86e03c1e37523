/**
 * RMS-style normalizations onnxruntime's exporters emit: SimplifiedLayerNormalization (registered
 * by onnxruntime in the ONNX domain, opset 1) and com.microsoft SkipSimplifiedLayerNormalization
 * (input + skip (+ bias), then RMS-normalised over the last axis and scaled by gamma).
 */
import { type OpDefinitionV1, type Shape, InferenceError, isUnknownRank } from '@tsge/metadef';
import { NN_FLOAT_TYPES, inputInfo, normalizeAxisForInfer } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

const epsilon = { name: 'epsilon', kind: 'float', default: { kind: 'float', value: 1e-5 } } as const;

/** X's shape with the dims from `axis` on set to 1 (the shape of per-row statistics). */
function statsShape(shape: Shape, axis: number): Shape {
  return shape.map((d, i) => (i >= axis ? 1 : d));
}

export const simplifiedLayerNormalizationOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'SimplifiedLayerNormalization',
    sinceVersion: 1,
    inputs: [param.required('X', 'T'), param.required('scale', 'V')],
    outputs: [param.required('Y', 'V'), param.optional('inv_std_var', 'U')],
    attributes: [
      { name: 'axis', kind: 'int', default: { kind: 'int', value: -1 } },
      epsilon,
      { name: 'stash_type', kind: 'int', default: { kind: 'int', value: 1 } },
    ],
    typeConstraints: [
      { name: 'T', allowed: NN_FLOAT_TYPES },
      { name: 'V', allowed: NN_FLOAT_TYPES },
      { name: 'U', allowed: ['float32', 'float64'] },
    ],
    infer(ctx) {
      const x = inputInfo(ctx, 0);
      ctx.setOutput(0, { dtype: ctx.input(1)?.dtype ?? x.dtype, shape: x.shape });
      // statistics are computed in float64 either way; stash_type picks inv_std_var's dtype
      const stash = ctx.attrs.int('stash_type', 1);
      if (stash !== 1 && stash !== 11)
        throw new InferenceError(`SimplifiedLayerNormalization ${ctx.nodeName}: stash_type must be 1 (float) or 11 (double), got ${stash}`);
      if (ctx.outputCount < 2) return;
      const dtype = stash === 11 ? 'float64' : 'float32';
      if (isUnknownRank(x.shape)) ctx.setOutput(1, { dtype, shape: x.shape });
      else {
        const axis = normalizeAxisForInfer(ctx, ctx.attrs.int('axis', -1), x.shape.length);
        ctx.setOutput(1, { dtype, shape: statsShape(x.shape, axis) });
      }
    },
  }),
  defineOp({
    type: 'SkipSimplifiedLayerNormalization',
    domain: 'com.microsoft',
    sinceVersion: 1,
    inputs: [param.required('input', 'T'), param.required('skip', 'T'), param.required('gamma', 'T'), param.optional('bias', 'T')],
    outputs: [
      param.required('output', 'T'),
      param.optional('mean', 'U'),
      param.optional('inv_std_var', 'U'),
      param.optional('input_skip_bias_sum', 'T'),
    ],
    attributes: [epsilon],
    typeConstraints: [
      { name: 'T', allowed: ['float32', 'float16', 'bfloat16'] },
      { name: 'U', allowed: ['float32'] },
    ],
    infer(ctx) {
      const x = inputInfo(ctx, 0);
      if (!isUnknownRank(x.shape) && x.shape.length !== 2 && x.shape.length !== 3)
        throw new InferenceError(`SkipSimplifiedLayerNormalization ${ctx.nodeName}: input must be 2-D or 3-D, got rank ${x.shape.length}`);
      const skip = inputInfo(ctx, 1);
      const gamma = inputInfo(ctx, 2);
      const fixed = (shape: Shape): shape is number[] => !isUnknownRank(shape) && shape.every((d) => typeof d === 'number' && d >= 0);
      if (fixed(x.shape) && fixed(skip.shape)) {
        const trailing = x.shape.slice(1).join();
        const ok =
          skip.shape.join() === x.shape.join() ||
          (x.shape.length === 3 && (skip.shape.join() === trailing || skip.shape.join() === `1,${trailing}`));
        if (!ok)
          throw new InferenceError(
            `SkipSimplifiedLayerNormalization ${ctx.nodeName}: skip [${skip.shape}] does not match input [${x.shape}]`,
          );
      }
      const hidden = isUnknownRank(x.shape) ? -1 : x.shape[x.shape.length - 1];
      if (typeof hidden === 'number' && hidden >= 0 && fixed(gamma.shape) && gamma.shape.reduce((a, b) => a * b, 1) !== hidden)
        throw new InferenceError(`SkipSimplifiedLayerNormalization ${ctx.nodeName}: gamma [${gamma.shape}] must hold ${hidden} values`);
      const stats = isUnknownRank(x.shape) ? x.shape : statsShape(x.shape, x.shape.length - 1);
      ctx.setOutput(0, { dtype: x.dtype, shape: x.shape });
      if (ctx.outputCount > 1) ctx.setOutput(1, { dtype: 'float32', shape: stats });
      if (ctx.outputCount > 2) ctx.setOutput(2, { dtype: 'float32', shape: stats });
      if (ctx.outputCount > 3) ctx.setOutput(3, { dtype: x.dtype, shape: x.shape });
    },
  }),
];

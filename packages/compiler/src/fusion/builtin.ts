import type { FusionPassV1, GraphPassV1, KernelRegistry, OpRegistry } from '@tsge/metadef';
import { attentionFusion } from './attention.js';
import { softmaxUnflattenFusion } from './softmax-unflatten.js';
import { swigluFusion } from './swiglu.js';
import { rotaryFusion } from './rotary.js';
import { affineBatchNormFusion } from './affine-batchnorm.js';
import { affineConvFusion } from './affine-conv.js';
import { convAffineFusion } from './conv-affine.js';
import { convBatchNormFusion } from './conv-batchnorm.js';
import { fusedActivationFusions } from './fused-activation.js';
import { geluFusion, layerNormFusion } from './decomposed.js';
import { rmsNormFusion } from './decomposed-more.js';
import { hardSigmoidFusion, hardSwishFusion } from './hard-swish.js';
import { matmulAddFusion } from './matmul-add.js';
import { qlinearConvFusion } from './qlinear-conv.js';
import { requantizedConvFusion } from './requantized-conv.js';
import { fusionAsPass } from './matcher.js';

/**
 * Built-in fusions, in the order they run (ONNX-domain rewrites at O2, tsge fused ops at O3). Chains
 * of elementwise ops (x · Sigmoid(x), x + x · s, …) are not patterns here: the `auto-fusion` pass
 * generates one kernel for each; the activations below stay patterns because they fuse into a
 * Conv's or MatMul's own epilogue.
 */
export function builtinFusions(ops: OpRegistry, kernels: KernelRegistry): FusionPassV1[] {
  const supported = (type: string, domain = 'ai.onnx') =>
    ops.has(type, domain) && kernels.find(type, domain, 'float32', ['reference']) !== undefined;
  return [
    convBatchNormFusion,
    matmulAddFusion(supported),
    geluFusion(supported),
    layerNormFusion(supported),
    rmsNormFusion(supported),
    // before attention, which then matches one Softmax over the scores
    softmaxUnflattenFusion,
    attentionFusion(supported),
    swigluFusion(supported),
    rotaryFusion(supported),
    hardSigmoidFusion(supported),
    hardSwishFusion(supported),
    // after the activation rewrites, so Clip(Conv + 3, 0, 6) / 6 stays a HardSigmoid of the Conv
    convAffineFusion,
    affineConvFusion,
    // what the Convs could not absorb
    affineBatchNormFusion(supported),
    ...fusedActivationFusions(supported),
    requantizedConvFusion,
    qlinearConvFusion,
  ];
}

export function builtinFusionPasses(ops: OpRegistry, kernels: KernelRegistry): GraphPassV1[] {
  return builtinFusions(ops, kernels).map(fusionAsPass);
}

import type { KernelV1, OpDefinitionV1 } from '@tsge/metadef';
import { attentionKernels, attentionOps } from './attention.js';
import { causalConvKernels, causalConvOps } from './causal-conv-with-state.js';
import { flexAttentionKernels, flexAttentionOps } from './flex-attention.js';
import { linearAttentionKernels, linearAttentionOps } from './linear-attention.js';
import { rotaryEmbeddingKernels, rotaryEmbeddingOps } from './rotary-embedding.js';

/** Op definitions of the transformer group. */
export const transformerOps: readonly OpDefinitionV1[] = [
  ...attentionOps,
  ...rotaryEmbeddingOps,
  ...linearAttentionOps,
  ...flexAttentionOps,
  ...causalConvOps,
];
/** Reference kernels of the transformer group. */
export const transformerKernels: readonly KernelV1[] = [
  ...attentionKernels,
  ...rotaryEmbeddingKernels,
  ...linearAttentionKernels,
  ...flexAttentionKernels,
  ...causalConvKernels,
];

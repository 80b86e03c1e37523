import type { KernelV1 } from '@tsge/metadef';
import { attentionKernels } from './attention.js';
import { causalConvKernels } from './causal-conv-with-state.js';
import { flexAttentionKernels } from './flex-attention.js';
import { groupQueryAttentionKernels } from './group-query-attention.js';
import { linearAttentionKernels } from './linear-attention.js';
import { rotaryEmbeddingKernels } from './rotary-embedding.js';
/** Reference kernels of the transformer group. */
export const transformerKernels: readonly KernelV1[] = [
  ...attentionKernels,
  ...rotaryEmbeddingKernels,
  ...linearAttentionKernels,
  ...flexAttentionKernels,
  ...causalConvKernels,
  ...groupQueryAttentionKernels,
];

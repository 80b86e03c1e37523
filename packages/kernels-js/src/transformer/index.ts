import type { KernelV1 } from '@tsge/metadef';
import { attentionKernels } from './attention.js';
import { biasSplitGeluKernels } from './bias-split-gelu.js';
import { causalConvKernels } from './causal-conv-with-state.js';
import { contribAttentionKernels } from './contrib-attention.js';
import { contribRotaryEmbeddingKernels } from './contrib-rotary-embedding.js';
import { embedLayerNormalizationKernels } from './embed-layer-normalization.js';
import { flexAttentionKernels } from './flex-attention.js';
import { groupQueryAttentionKernels } from './group-query-attention.js';
import { linearAttentionKernels } from './linear-attention.js';
import { multiHeadAttentionKernels } from './multi-head-attention.js';
import { rotaryEmbeddingKernels } from './rotary-embedding.js';
import { simplifiedLayerNormalizationKernels } from './simplified-layer-normalization.js';
/** Reference kernels of the transformer group. */
export const transformerKernels: readonly KernelV1[] = [
  ...attentionKernels,
  ...rotaryEmbeddingKernels,
  ...linearAttentionKernels,
  ...flexAttentionKernels,
  ...causalConvKernels,
  ...groupQueryAttentionKernels,
  ...contribAttentionKernels,
  ...multiHeadAttentionKernels,
  ...contribRotaryEmbeddingKernels,
  ...embedLayerNormalizationKernels,
  ...simplifiedLayerNormalizationKernels,
  ...biasSplitGeluKernels,
];

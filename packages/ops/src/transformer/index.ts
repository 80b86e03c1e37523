import type { OpDefinitionV1 } from '@tsge/metadef';
import { attentionOps } from './attention.js';
import { biasSplitGeluOps } from './bias-split-gelu.js';
import { causalConvOps } from './causal-conv-with-state.js';
import { contribAttentionOps } from './contrib-attention.js';
import { contribRotaryEmbeddingOps } from './contrib-rotary-embedding.js';
import { embedLayerNormalizationOps } from './embed-layer-normalization.js';
import { flexAttentionOps } from './flex-attention.js';
import { groupQueryAttentionOps } from './group-query-attention.js';
import { linearAttentionOps } from './linear-attention.js';
import { multiHeadAttentionOps } from './multi-head-attention.js';
import { rotaryEmbeddingOps } from './rotary-embedding.js';
import { simplifiedLayerNormalizationOps } from './simplified-layer-normalization.js';

/** Op definitions of the transformer group. */
export const transformerOps: readonly OpDefinitionV1[] = [
  ...attentionOps,
  ...rotaryEmbeddingOps,
  ...linearAttentionOps,
  ...flexAttentionOps,
  ...causalConvOps,
  ...groupQueryAttentionOps,
  ...contribAttentionOps,
  ...multiHeadAttentionOps,
  ...contribRotaryEmbeddingOps,
  ...embedLayerNormalizationOps,
  ...simplifiedLayerNormalizationOps,
  ...biasSplitGeluOps,
];

import type { OpDefinitionV1 } from '@tsge/metadef';
import { attentionOps } from './attention.js';
import { causalConvOps } from './causal-conv-with-state.js';
import { flexAttentionOps } from './flex-attention.js';
import { groupQueryAttentionOps } from './group-query-attention.js';
import { linearAttentionOps } from './linear-attention.js';
import { rotaryEmbeddingOps } from './rotary-embedding.js';

/** Op definitions of the transformer group. */
export const transformerOps: readonly OpDefinitionV1[] = [
  ...attentionOps,
  ...rotaryEmbeddingOps,
  ...linearAttentionOps,
  ...flexAttentionOps,
  ...causalConvOps,
  ...groupQueryAttentionOps,
];

// The fields of a Hugging Face config.json that a Qwen2/Qwen3-class decoder needs, validated.
import { TsgeError } from '@tsge/metadef';

export interface DecoderConfig {
  readonly modelType: string;
  readonly hidden: number;
  readonly intermediate: number;
  readonly layers: number;
  readonly heads: number;
  readonly kvHeads: number;
  readonly headDim: number;
  readonly vocab: number;
  readonly rmsEps: number;
  readonly ropeTheta: number;
  readonly tieEmbeddings: boolean;
  readonly maxPositions: number;
  readonly eosTokenIds: readonly number[];
}

/** Architectures whose layers this example builds (RMSNorm, GQA + RoPE, SwiGLU). */
const KNOWN_TYPES = new Set(['qwen2', 'qwen3', 'llama']);

export function parseConfig(json: string, file: string): DecoderConfig {
  const bad = (reason: string) => TsgeError.of('TSGE-E4150', { file, reason });
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    throw bad(`not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad('not a JSON object');
  const c = raw as Record<string, unknown>;
  const field = (name: string): unknown => (Object.hasOwn(c, name) ? c[name] : undefined);
  const int = (name: string, fallback?: number): number => {
    const v = field(name) ?? fallback;
    if (!Number.isSafeInteger(v) || (v as number) <= 0) throw bad(`${name} must be a positive integer, got ${JSON.stringify(v)}`);
    return v as number;
  };
  const num = (name: string, fallback: number): number => {
    const v = field(name) ?? fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw bad(`${name} must be a positive number, got ${JSON.stringify(v)}`);
    return v;
  };
  const modelType = field('model_type');
  if (typeof modelType !== 'string' || !KNOWN_TYPES.has(modelType))
    throw bad(`model_type ${JSON.stringify(modelType)} is not one this example builds (${[...KNOWN_TYPES].join(', ')})`);
  const rope = field('rope_scaling');
  if (rope !== undefined && rope !== null) {
    const type = typeof rope === 'object' && Object.hasOwn(rope, 'rope_type') ? (rope as { rope_type: unknown }).rope_type : undefined;
    if (type !== 'default') throw bad(`rope_scaling ${JSON.stringify(rope)} is not supported (plain RoPE only)`);
  }
  const act = field('hidden_act') ?? 'silu';
  if (act !== 'silu') throw bad(`hidden_act ${JSON.stringify(act)} is not supported (silu only)`);
  const hidden = int('hidden_size');
  const heads = int('num_attention_heads');
  const kvHeads = int('num_key_value_heads', heads);
  if (heads % kvHeads !== 0) throw bad(`num_attention_heads ${heads} is not a multiple of num_key_value_heads ${kvHeads}`);
  const headDim = int('head_dim', hidden / heads);
  if (headDim % 2 !== 0) throw bad(`head_dim ${headDim} must be even for rotary embeddings`);
  const eos = field('eos_token_id');
  const eosTokenIds = eos === undefined || eos === null ? [] : Array.isArray(eos) ? eos : [eos];
  if (!eosTokenIds.every((t) => Number.isSafeInteger(t) && t >= 0))
    throw bad(`eos_token_id ${JSON.stringify(eos)} is not a token id or list`);
  return {
    modelType,
    hidden,
    intermediate: int('intermediate_size'),
    layers: int('num_hidden_layers'),
    heads,
    kvHeads,
    headDim,
    vocab: int('vocab_size'),
    rmsEps: num('rms_norm_eps', 1e-6),
    ropeTheta: num('rope_theta', 10000),
    tieEmbeddings: field('tie_word_embeddings') === true,
    maxPositions: int('max_position_embeddings', 4096),
    eosTokenIds,
  };
}

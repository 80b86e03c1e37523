// The decoder `pnpm bench:llm` measures, shared by its coordinator (llm.ts) and the child process
// each runtime runs in (llm-child.ts): Qwen2.5-0.5B's shapes with `layers` of its 24 layers and
// seeded random weights, and one timed prefill + greedy decode on tsge or onnxruntime. tsge keeps its
// KV cache in place (present bound to past); onnxruntime gets each step's presents back as the next
// past, as its own API does.
import { type DecoderConfig, Decoder, type WeightSource, argmax } from '@tsge/example-llm';
import type { HostTensor } from '@tsge/metadef';
import type { LoadedRuntime } from './runtimes.js';

export const LLM_RUNTIMES = ['tsge', 'ort-node', 'ort-web'] as const;
export const LLM_FORMATS = ['fp32', 'int4'] as const;
export type LlmRuntime = (typeof LLM_RUNTIMES)[number];
export type LlmFormat = (typeof LLM_FORMATS)[number];

/** What a run of the bench is: the same in the coordinator and every child. */
export interface LlmShape {
  readonly layers: number;
  readonly promptLength: number;
  readonly steps: number;
  readonly threads: number;
}

export function decoderConfig(layers: number): DecoderConfig {
  return {
    modelType: 'qwen2',
    hidden: 896,
    intermediate: 4864,
    layers,
    heads: 14,
    kvHeads: 2,
    headDim: 64,
    vocab: 151936,
    rmsEps: 1e-6,
    ropeTheta: 1_000_000,
    tieEmbeddings: true,
    maxPositions: 32768,
    eosTokenIds: [],
  };
}

export const maxLength = (shape: LlmShape): number => shape.promptLength + shape.steps + 1;

/** Qwen2's weights (q/k/v biases, tied lm_head), seeded per name, generated once. */
export function randomWeights(config: DecoderConfig): WeightSource {
  const { hidden, intermediate, heads, kvHeads, headDim, vocab, layers } = config;
  const shapes = new Map<string, number[]>([
    ['model.embed_tokens.weight', [vocab, hidden]],
    ['model.norm.weight', [hidden]],
  ]);
  for (let i = 0; i < layers; i++) {
    const p = `model.layers.${i}`;
    shapes.set(`${p}.input_layernorm.weight`, [hidden]);
    shapes.set(`${p}.post_attention_layernorm.weight`, [hidden]);
    for (const [name, out] of [
      ['q_proj', heads * headDim],
      ['k_proj', kvHeads * headDim],
      ['v_proj', kvHeads * headDim],
    ] as const) {
      shapes.set(`${p}.self_attn.${name}.weight`, [out, hidden]);
      shapes.set(`${p}.self_attn.${name}.bias`, [out]);
    }
    shapes.set(`${p}.self_attn.o_proj.weight`, [hidden, heads * headDim]);
    shapes.set(`${p}.mlp.gate_proj.weight`, [intermediate, hidden]);
    shapes.set(`${p}.mlp.up_proj.weight`, [intermediate, hidden]);
    shapes.set(`${p}.mlp.down_proj.weight`, [hidden, intermediate]);
  }
  const made = new Map<string, Float32Array>();
  return {
    has: (name) => shapes.has(name),
    get(name) {
      const shape = shapes.get(name) as number[];
      let data = made.get(name);
      if (!data) {
        let s = [...name].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619), 2166136261) >>> 0 || 1;
        const norm = name.endsWith('norm.weight');
        const scale = norm ? 0.1 : 1 / Math.sqrt(shape[shape.length - 1] as number);
        data = new Float32Array(shape.reduce((a, b) => a * b, 1));
        for (let i = 0; i < data.length; i++) {
          s ^= s << 13;
          s ^= s >>> 17;
          s ^= s << 5;
          data[i] = (norm ? 1 : 0) + ((s >>> 0) / 2 ** 32 - 0.5) * 2 * scale;
        }
        made.set(name, data);
      }
      return { shape, data };
    },
  };
}

export interface DecodeResult {
  readonly prefillMs: number;
  readonly decodeTokensPerSecond: number;
  /** Logits of the last decode step (for the agreement column). */
  readonly logits: Float32Array;
}

/** A loaded decoder: `round` resets it, then times a prefill and `steps` greedy decode steps. */
export interface LlmSession {
  round(): Promise<DecodeResult>;
  release(): Promise<void>;
}

function prompt(shape: LlmShape, vocab: number): number[] {
  return Array.from({ length: shape.promptLength }, (_, i) => (i * 7919 + 13) % vocab);
}

async function timed(
  shape: LlmShape,
  vocab: number,
  step: (tokens: readonly number[]) => Promise<Float32Array>,
  reset: () => void,
): Promise<DecodeResult> {
  reset();
  const start = performance.now();
  let logits = await step(prompt(shape, vocab));
  const prefillMs = performance.now() - start;
  const decodeStart = performance.now();
  for (let i = 0; i < shape.steps; i++) logits = await step([argmax(logits)]);
  return { prefillMs, decodeTokensPerSecond: shape.steps / ((performance.now() - decodeStart) / 1000), logits };
}

/** tsge's session; with `profile`, `profileLines` describes the last round's decode steps. */
export async function tsgeSession(
  shape: LlmShape,
  weights: WeightSource,
  int4: boolean,
  profile: boolean,
): Promise<LlmSession & { profileLines?: (format: string) => string[] }> {
  const config = decoderConfig(shape.layers);
  const load = profile ? { load: { profile: true } } : {};
  const decoder = await Decoder.create(
    { dir: 'random', config, weights },
    { maxLength: maxLength(shape), int4, threads: shape.threads, ...load },
  );
  // one untimed prefill: the workers start and the kernels compile
  await decoder.step(prompt(shape, config.vocab));
  return {
    round: () =>
      timed(
        shape,
        config.vocab,
        (tokens) => decoder.step(tokens),
        () => decoder.reset(),
      ),
    // only when profiling: without it the executor records no events to describe
    ...(profile
      ? {
          profileLines: (format: string) =>
            profileLines(decoder.profile().traceEvents, shape.steps, format, int4 ? undefined : matmulBytes(config)),
        }
      : {}),
    release: () => decoder.release(),
  };
}

/** onnxruntime's session on the decoder written as ONNX. */
export async function ortSession(shape: LlmShape, model: LoadedRuntime): Promise<LlmSession> {
  const { kvHeads, headDim, vocab } = decoderConfig(shape.layers);
  const empty = (): Record<string, HostTensor> => {
    const past: Record<string, HostTensor> = {};
    for (let i = 0; i < shape.layers; i++)
      for (const kv of ['key', 'value'])
        past[`past_key_values.${i}.${kv}`] = { type: 'float32', dims: [1, kvHeads, 0, headDim], data: new Float32Array(0) };
    return past;
  };
  let past = empty();
  let position = 0;
  const step = async (tokens: readonly number[]): Promise<Float32Array> => {
    const total = position + tokens.length;
    const out = await model.run({
      input_ids: { type: 'int64', dims: [1, tokens.length], data: BigInt64Array.from(tokens, BigInt) },
      seqlens_k: { type: 'int32', dims: [1], data: Int32Array.of(total - 1) },
      total_sequence_length: { type: 'int32', dims: [], data: Int32Array.of(total) },
      ...past,
    });
    past = {};
    for (let i = 0; i < shape.layers; i++)
      for (const kv of ['key', 'value']) past[`past_key_values.${i}.${kv}`] = out[`present.${i}.${kv}`] as HostTensor;
    position = total;
    return (out.logits as HostTensor).data as Float32Array;
  };
  const reset = (): void => {
    past = empty();
    position = 0;
  };
  reset();
  await step(prompt(shape, vocab));
  return { round: () => timed(shape, vocab, step, reset), release: () => model.release() };
}

/** Bytes of the float32 MatMul weights a decode step streams: every projection and the tied lm_head. */
export function matmulBytes(config: DecoderConfig): number {
  const { hidden, intermediate, heads, kvHeads, headDim, vocab, layers } = config;
  const layer = hidden * (heads + 2 * kvHeads) * headDim + heads * headDim * hidden + 3 * hidden * intermediate;
  return 4 * (layers * layer + vocab * hidden);
}

/**
 * The last `steps` runs (the decode steps) of a profile: per op type ms a step, and the wall time;
 * with `weightBytes` (float32), the rate the PackedMatMuls stream them at over their time on the
 * stream's own thread (helpers' tiles run meanwhile, inside that time).
 */
function profileLines(
  events: ReturnType<Decoder['profile']>['traceEvents'],
  steps: number,
  format: string,
  weightBytes?: number,
): string[] {
  const tasks = events.flatMap((e) => (e.ph === 'X' ? [e] : []));
  if (tasks.length === 0) return [`tsge ${format}: the profile has no tasks`];
  const last = tasks.reduce((m, e) => Math.max(m, e.args.run), 0);
  const decode = tasks.filter((e) => e.args.run > last - steps);
  const byOp = new Map<string, { ms: number; count: number; threads: Set<number>; kernels: Set<string> }>();
  for (const e of decode) {
    const key = e.args.opType;
    const entry = byOp.get(key) ?? { ms: 0, count: 0, threads: new Set(), kernels: new Set() };
    entry.ms += e.dur / 1000;
    entry.count++;
    entry.threads.add(e.tid);
    entry.kernels.add(e.args.kernel);
    byOp.set(key, entry);
  }
  let wall = 0;
  for (let run = last - steps + 1; run <= last; run++) {
    const of = decode.filter((e) => e.args.run === run);
    wall += (Math.max(...of.map((e) => e.ts + e.dur)) - Math.min(...of.map((e) => e.ts))) / 1000;
  }
  const busy = decode.reduce((sum, e) => sum + e.dur / 1000, 0);
  const gemvMs = (byOp.get('PackedMatMul')?.ms ?? 0) / steps;
  const rate =
    weightBytes && gemvMs > 0
      ? [
          `  PackedMatMul: ${(weightBytes / 1e6).toFixed(0)} MB of weights a step in ${gemvMs.toFixed(2)} ms: ${(weightBytes / gemvMs / 1e6).toFixed(1)} GB/s`,
        ]
      : [];
  return [
    `tsge ${format} decode step profile (mean of the last round's ${steps} steps): first task start to last task end ${(wall / steps).toFixed(2)} ms, tasks ${(busy / steps).toFixed(2)} ms`,
    '  op type                        ms/step  tasks/step  threads (0 = caller)  kernels',
    ...[...byOp]
      .sort((a, b) => b[1].ms - a[1].ms)
      .map(
        ([op, e]) =>
          `  ${op.padEnd(28)} ${(e.ms / steps).toFixed(3).padStart(9)}  ${(e.count / steps).toFixed(0).padStart(10)}  ${[...e.threads].sort().join(',').padStart(20)}  ${[...e.kernels].join(',')}`,
      ),
    ...rate,
  ];
}

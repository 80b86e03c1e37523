// pnpm bench:llm: prefill time and decode tokens/s of a decoder in Qwen2.5-0.5B's shapes (hidden
// 896, 14 heads / 2 KV heads, intermediate 4864, vocabulary 151936; `--layers` of the 24) with seeded
// random weights, float32 and 4-bit (MatMulNBits), as one graph (examples/llm's buildDecoderGraph:
// GroupQueryAttention with rotary, SimplifiedLayerNormalization, SwiGLU) compiled by tsge and
// written as ONNX for onnxruntime-node and onnxruntime-web. tsge keeps its KV cache in place (present
// bound to past); onnxruntime gets each step's presents back as the next past, as its own API does.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { type DecoderConfig, Decoder, type WeightSource, argmax, buildDecoderGraph } from '@tsge/example-llm';
import type { HostTensor } from '@tsge/metadef';
import { integerFlag, listFlag, parseFlags } from './bench-options.js';
import { graphToOnnx } from './graph-to-onnx.js';
import { benchLmHead } from './llm-lm-head.js';
import { type LoadedRuntime, loadOrtNode, loadOrtWeb } from './runtimes.js';

const RUNTIMES = ['tsge', 'ort-node', 'ort-web'] as const;
const FORMATS = ['fp32', 'int4'] as const;
type Runtime = (typeof RUNTIMES)[number];

const COMMAND = 'bench:llm';
const values = parseFlags(COMMAND, {
  layers: { type: 'string', default: '4' },
  prompt: { type: 'string', default: '8' },
  steps: { type: 'string', default: '8' },
  threads: { type: 'string', default: String(availableParallelism()) },
  runtimes: { type: 'string', default: RUNTIMES.join(',') },
  formats: { type: 'string', default: FORMATS.join(',') },
  // per op type: tsge's time in a decode step (the executor's profile) and the step's wall time
  profile: { type: 'boolean', default: false },
  // only the fp32 lm_head MatMul, tsge and onnxruntime-web, in GB/s of weights streamed (on its
  // own: onnxruntime-web's heap does not shrink after the 544 MB weight, so no decoder follows)
  'lm-head': { type: 'boolean', default: false },
});

const layers = integerFlag(COMMAND, '--layers', values.layers, 24);
const promptLength = integerFlag(COMMAND, '--prompt', values.prompt, 512);
const steps = integerFlag(COMMAND, '--steps', values.steps, 512);
const threads = integerFlag(COMMAND, '--threads', values.threads, 64);
const runtimes = listFlag(COMMAND, '--runtimes', values.runtimes, RUNTIMES);
const formats = listFlag(COMMAND, '--formats', values.formats, FORMATS);

const config: DecoderConfig = {
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
const maxLength = promptLength + steps + 1;

/** Qwen2's weights (q/k/v biases, tied lm_head), seeded per name, generated once. */
function randomWeights(): WeightSource {
  const { hidden, intermediate, heads, kvHeads, headDim, vocab } = config;
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

interface Result {
  prefillMs: number;
  decodeTokensPerSecond: number;
  /** Logits of the last decode step (for the agreement line). */
  logits: Float32Array;
}

const prompt = Array.from({ length: promptLength }, (_, i) => (i * 7919 + 13) % config.vocab);

/** One warm-up prefill, then a timed prefill and `steps` timed greedy decode steps. */
async function timed(step: (tokens: readonly number[]) => Promise<Float32Array>, reset: () => void): Promise<Result> {
  await step(prompt);
  reset();
  const start = performance.now();
  let logits = await step(prompt);
  const prefillMs = performance.now() - start;
  const decodeStart = performance.now();
  for (let i = 0; i < steps; i++) logits = await step([argmax(logits)]);
  return { prefillMs, decodeTokensPerSecond: steps / ((performance.now() - decodeStart) / 1000), logits };
}

async function runTsge(weights: WeightSource, int4: boolean): Promise<Result> {
  const load = values.profile ? { load: { profile: true } } : {};
  const decoder = await Decoder.create({ dir: 'random', config, weights }, { maxLength, int4, threads, ...load });
  try {
    const result = await timed(
      (tokens) => decoder.step(tokens),
      () => decoder.reset(),
    );
    if (values.profile) printProfile(decoder.profile().traceEvents, int4 ? 'int4' : 'fp32');
    return result;
  } finally {
    await decoder.release();
  }
}

/** The last `steps` runs (the decode steps) of a profile: per op type ms a step, and the wall time. */
function printProfile(events: ReturnType<Decoder['profile']>['traceEvents'], format: string): void {
  const tasks = events.flatMap((e) => (e.ph === 'X' ? [e] : []));
  const last = Math.max(...tasks.map((e) => e.args.run));
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
  console.log(
    `tsge ${format} decode step profile (mean of ${steps} steps): first task start to last task end ${(wall / steps).toFixed(2)} ms, tasks ${(busy / steps).toFixed(2)} ms`,
  );
  console.log('  op type                        ms/step  tasks/step  threads (0 = caller)  kernels');
  for (const [op, e] of [...byOp].sort((a, b) => b[1].ms - a[1].ms))
    console.log(
      `  ${op.padEnd(28)} ${(e.ms / steps).toFixed(3).padStart(9)}  ${(e.count / steps).toFixed(0).padStart(10)}  ${[...e.threads].sort().join(',').padStart(20)}  ${[...e.kernels].join(',')}`,
    );
}

async function runOrt(model: LoadedRuntime): Promise<Result> {
  const { kvHeads, headDim } = config;
  const empty = (): Record<string, HostTensor> => {
    const past: Record<string, HostTensor> = {};
    for (let i = 0; i < layers; i++)
      for (const kv of ['key', 'value'])
        past[`past_key_values.${i}.${kv}`] = { type: 'float32', dims: [1, kvHeads, 0, headDim], data: new Float32Array(0) };
    return past;
  };
  let past = empty();
  let position = 0;
  try {
    return await timed(
      async (tokens) => {
        const total = position + tokens.length;
        const out = await model.run({
          input_ids: { type: 'int64', dims: [1, tokens.length], data: BigInt64Array.from(tokens, BigInt) },
          seqlens_k: { type: 'int32', dims: [1], data: Int32Array.of(total - 1) },
          total_sequence_length: { type: 'int32', dims: [], data: Int32Array.of(total) },
          ...past,
        });
        past = {};
        for (let i = 0; i < layers; i++)
          for (const kv of ['key', 'value']) past[`past_key_values.${i}.${kv}`] = out[`present.${i}.${kv}`] as HostTensor;
        position = total;
        return (out.logits as HostTensor).data as Float32Array;
      },
      () => {
        past = empty();
        position = 0;
      },
    );
  } finally {
    await model.release();
  }
}

if (values['lm-head']) {
  console.log(`fp32 lm_head alone: [1, ${config.hidden}] · [${config.hidden}, ${config.vocab}], best of 20 runs, ${threads} threads`);
  for (const row of await benchLmHead(config.hidden, config.vocab, threads)) console.log(row);
  process.exit(0);
}
const weights = randomWeights();
const dir = await mkdtemp(path.join(tmpdir(), 'tsge-bench-llm-'));
const rows: string[] = [];
try {
  for (const format of formats) {
    const int4 = format === 'int4';
    const results = new Map<Runtime, Result>();
    let onnx: Uint8Array | undefined;
    if (runtimes.some((r) => r !== 'tsge')) {
      onnx = graphToOnnx(buildDecoderGraph(config, weights, 'random', { maxLength, int4 }));
      await writeFile(path.join(dir, `${format}.onnx`), onnx);
    }
    for (const runtime of runtimes) {
      process.stderr.write(`${format} ${runtime} ...\n`);
      if (runtime === 'tsge') results.set(runtime, await runTsge(weights, int4));
      else if (runtime === 'ort-node') results.set(runtime, await runOrt(await loadOrtNode(path.join(dir, `${format}.onnx`), threads)));
      else results.set(runtime, await runOrt(await loadOrtWeb(onnx as Uint8Array, threads)));
    }
    const web = results.get('ort-web');
    const node = results.get('ort-node');
    for (const [runtime, r] of results) {
      // the runtimes decode the same greedy tokens while their logits agree; print how close they are
      let worst = 0;
      if (node && runtime !== 'ort-node')
        for (let i = 0; i < r.logits.length; i++) worst = Math.max(worst, Math.abs((r.logits[i] as number) - (node.logits[i] as number)));
      rows.push(
        [
          format.padEnd(5),
          runtime.padEnd(9),
          `${r.prefillMs.toFixed(0)} ms`.padStart(10),
          `${r.decodeTokensPerSecond.toFixed(2)} tok/s`.padStart(13),
          web ? `${(r.decodeTokensPerSecond / web.decodeTokensPerSecond).toFixed(2)}×`.padStart(8) : '       -',
          web ? `${(web.prefillMs / r.prefillMs).toFixed(2)}×`.padStart(8) : '       -',
          node && runtime !== 'ort-node' ? worst.toExponential(1).padStart(9) : '        -',
        ].join('  '),
      );
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
console.log(
  `decoder in Qwen2.5-0.5B's shapes, ${layers} of 24 layers, seeded random weights; prompt ${promptLength} tokens, ${steps} decode steps, ${threads} threads`,
);
console.log('format  runtime       prefill         decode  decode/web  prefill/web  |Δlogits| vs ort-node');
for (const row of rows) console.log(row);

// pnpm bench:llm: prefill time and decode tokens/s of a decoder in Qwen2.5-0.5B's shapes (hidden
// 896, 14 heads / 2 KV heads, intermediate 4864, vocabulary 151936; `--layers` of the 24) with seeded
// random weights, float32 and 4-bit (MatMulNBits), as one graph (examples/llm's buildDecoderGraph:
// GroupQueryAttention with rotary, SimplifiedLayerNormalization, SwiGLU) compiled by tsge and
// written as ONNX for onnxruntime-node and onnxruntime-web. As `pnpm bench --rounds` does
// (isolated.ts): each runtime in its own process (llm-child.ts), `--rounds` interleaved rounds of
// one prefill and `--steps` decode steps, each runtime's figures the median of its rounds and each
// ratio the median (min–max) of its per-round ratios.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { buildDecoderGraph } from '@tsge/example-llm';
import { latencyStats } from '@tsge/run';
import { integerFlag, listFlag, parseFlags } from './bench-options.js';
import { graphToOnnx } from './graph-to-onnx.js';
import { Child, type RatioSpread, interleavedRounds, ratioSpread } from './isolated.js';
import type { LlmChildReply, LlmChildRequest } from './llm-child.js';
import { LLM_FORMATS, LLM_RUNTIMES, type LlmRuntime, type LlmShape, decoderConfig, maxLength, randomWeights } from './llm-decoder.js';
import { benchLmHead } from './llm-lm-head.js';

const COMMAND = 'bench:llm';
const values = parseFlags(COMMAND, {
  layers: { type: 'string', default: '4' },
  prompt: { type: 'string', default: '8' },
  steps: { type: 'string', default: '8' },
  threads: { type: 'string', default: String(availableParallelism()) },
  runtimes: { type: 'string', default: LLM_RUNTIMES.join(',') },
  formats: { type: 'string', default: LLM_FORMATS.join(',') },
  // interleaved rounds of a prefill and --steps decode steps, each runtime in its own process
  rounds: { type: 'string', default: '5' },
  // per op type: tsge's time in a decode step (the executor's profile) and the step's wall time
  profile: { type: 'boolean', default: false },
  // only the fp32 lm_head MatMul, tsge and onnxruntime-web, in GB/s of weights streamed (on its
  // own: onnxruntime-web's heap does not shrink after the 544 MB weight, so no decoder follows)
  'lm-head': { type: 'boolean', default: false },
});
const shape: LlmShape = {
  layers: integerFlag(COMMAND, '--layers', values.layers, 24),
  promptLength: integerFlag(COMMAND, '--prompt', values.prompt, 512),
  steps: integerFlag(COMMAND, '--steps', values.steps, 512),
  threads: integerFlag(COMMAND, '--threads', values.threads, 64),
};
const rounds = integerFlag(COMMAND, '--rounds', values.rounds, 100);
const runtimes = listFlag(COMMAND, '--runtimes', values.runtimes, LLM_RUNTIMES);
const formats = listFlag(COMMAND, '--formats', values.formats, LLM_FORMATS);
const config = decoderConfig(shape.layers);

if (values['lm-head']) {
  console.log(`fp32 lm_head alone: [1, ${config.hidden}] · [${config.hidden}, ${config.vocab}], best of 20 runs, ${shape.threads} threads`);
  for (const row of await benchLmHead(config.hidden, config.vocab, shape.threads)) console.log(row);
  process.exit(0);
}

type LlmChild = Child<LlmChildRequest, LlmChildReply, LlmRuntime>;
const CHILD = new URL('./llm-child.ts', import.meta.url);
const median = (xs: readonly number[]): number => latencyStats([...xs]).medianMs;

interface Measured {
  /** Per round, in round order. */
  readonly tokensPerSecond: number[];
  readonly prefillMs: number[];
  /** The last round's last logits. */
  logits?: Float32Array;
}

const load = loadavg()[0] as number;
const dir = await mkdtemp(path.join(tmpdir(), 'tsge-bench-llm-'));
const rows: string[] = [];
const profiles: string[] = [];
try {
  for (const format of formats) {
    const int4 = format === 'int4';
    let onnx: string | undefined;
    if (runtimes.some((r) => r !== 'tsge')) {
      onnx = path.join(dir, `${format}.onnx`);
      await writeFile(onnx, graphToOnnx(buildDecoderGraph(config, randomWeights(config), 'random', { maxLength: maxLength(shape), int4 })));
    }
    const children: LlmChild[] = runtimes.map((r) => new Child(r, CHILD));
    const measured = new Map<LlmRuntime, Measured>();
    try {
      // loaded one after another, so no load competes with another for the cores
      for (const c of children) {
        process.stderr.write(`${format} ${c.name}: loading ...\n`);
        await c.request({ kind: 'load', runtime: c.name, format, shape, profile: values.profile, ...(onnx ? { onnx } : {}) }, 'loaded');
        measured.set(c.name, { tokensPerSecond: [], prefillMs: [] });
      }
      // one untimed round each: the decode kernels tier up before any round counts
      for (const c of children) await c.request({ kind: 'round' }, 'round');
      let profile: string[] | undefined;
      await interleavedRounds(children, rounds, async (c) => {
        const { result, profile: lines } = await c.request({ kind: 'round' }, 'round');
        const m = measured.get(c.name) as Measured;
        m.tokensPerSecond.push(result.decodeTokensPerSecond);
        m.prefillMs.push(result.prefillMs);
        m.logits = result.logits;
        profile = lines ?? profile;
        return result.decodeTokensPerSecond;
      });
      if (profile) profiles.push(...profile);
    } finally {
      for (const c of children) c.exit();
    }
    rows.push(...formatRows(format, measured));
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
for (const line of profiles) console.log(line);
console.log(
  `decoder in Qwen2.5-0.5B's shapes, ${shape.layers} of 24 layers, seeded random weights; prompt ${shape.promptLength} tokens, ${shape.steps} decode steps, ${shape.threads} threads; each runtime in its own process, medians of ${rounds} interleaved rounds (ratios: median and min–max of the per-round ratios); load average ${load.toFixed(1)} at the start, ${(loadavg()[0] as number).toFixed(1)} at the end`,
);
console.log('format  runtime       prefill         decode  decode/web (min–max)  prefill/web  |Δlogits| vs ort-node');
for (const row of rows) console.log(row);

function formatRows(format: string, measured: ReadonlyMap<LlmRuntime, Measured>): string[] {
  const web = measured.get('ort-web');
  const node = measured.get('ort-node');
  const ratio = (s: RatioSpread | undefined): string => (s ? `${s.median.toFixed(2)}× (${s.min.toFixed(2)}–${s.max.toFixed(2)})` : '-');
  return [...measured].map(([runtime, m]) => {
    // the runtimes decode the same greedy tokens while their logits agree; print how close they are
    let worst: number | undefined;
    if (node?.logits && m.logits && runtime !== 'ort-node') {
      worst = 0;
      for (let i = 0; i < m.logits.length; i++) worst = Math.max(worst, Math.abs((m.logits[i] as number) - (node.logits[i] as number)));
    }
    return [
      format.padEnd(5),
      runtime.padEnd(9),
      `${median(m.prefillMs).toFixed(0)} ms`.padStart(10),
      `${median(m.tokensPerSecond).toFixed(2)} tok/s`.padStart(13),
      ratio(web && ratioSpread(m.tokensPerSecond, web.tokensPerSecond)).padStart(20),
      (web ? `${ratioSpread(web.prefillMs, m.prefillMs)?.median.toFixed(2)}×` : '-').padStart(11),
      (worst === undefined ? '-' : worst.toExponential(1)).padStart(9),
    ].join('  ');
  });
}

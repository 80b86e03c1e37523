// pnpm bench:attention: prefill latency of one decomposed self-attention block as PyTorch exports it
// (Q/K/V projections, Reshape/Transpose head split, Q·Kᵀ / √d + causal mask, Softmax, ·V, merge,
// output projection), Qwen2.5-0.5B's attention shapes (hidden 896, 14 heads × 64), `--seq` tokens.
// tsge with the `attention` fusion (one Attention node on the streaming-softmax SIMD kernel) and
// without it, onnxruntime-node and onnxruntime-web on the same ONNX bytes, in one process.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { compileModel, loadModel } from '@tsge/ge';
import { GraphBuilder, type HostTensor, type Value, attr, createTensorDesc } from '@tsge/metadef';
import { integerFlag, parseFlags } from './bench-options.js';
import { graphToOnnx } from './graph-to-onnx.js';
import { type LoadedRuntime, loadOrtNode, loadOrtWeb } from './runtimes.js';

const COMMAND = 'bench:attention';
const values = parseFlags(COMMAND, {
  seq: { type: 'string', default: '512' },
  runs: { type: 'string', default: '10' },
  threads: { type: 'string', default: String(availableParallelism()) },
});
const S = integerFlag(COMMAND, '--seq', values.seq, 4096);
const runs = integerFlag(COMMAND, '--runs', values.runs, 1000);
const threads = integerFlag(COMMAND, '--threads', values.threads, 64);
const [E, H, D] = [896, 14, 64];

function seeded(n: number, seed: number, scale: number): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s / 2 ** 32 - 0.5) * 2 * scale;
  });
}

function attentionBlock() {
  const b = new GraphBuilder('decomposed-attention');
  const x = b.input('x', 'float32', [1, S, E]);
  const any = (shape: number[]) => ({ outputDescs: [createTensorDesc('float32', shape)] });
  const ints = (name: string, v: number[]) => b.constant(name, BigInt64Array.from(v, BigInt), [v.length]);
  const heads = ints('heads', [1, S, H, D]);
  const merged = ints('merged', [1, S, E]);
  const proj = (p: string, seed: number): Value =>
    b.op('MatMul', [x, b.constant(`w${p}`, seeded(E * E, seed, 0.05), [E, E])], any([1, S, E]));
  const split = (v: Value, perm: number[], shape: number[]) =>
    b.op('Transpose', [b.op('Reshape', [v, heads], any([1, S, H, D]))], { attrs: { perm: attr.ints(perm) }, ...any(shape) });
  const q = split(proj('q', 1), [0, 2, 1, 3], [1, H, S, D]);
  const kt = split(proj('k', 2), [0, 2, 3, 1], [1, H, D, S]);
  const v = split(proj('v', 3), [0, 2, 1, 3], [1, H, S, D]);
  const mask = new Float32Array(S * S);
  for (let i = 0; i < S; i++) for (let j = i + 1; j < S; j++) mask[i * S + j] = Number.NEGATIVE_INFINITY;
  const scores = b.op(
    'Div',
    [b.op('MatMul', [q, kt], any([1, H, S, S])), b.constant('sqrt_d', Float32Array.of(Math.sqrt(D)), [])],
    any([1, H, S, S]),
  );
  const masked = b.op('Add', [scores, b.constant('causal', mask, [S, S])], any([1, H, S, S]));
  const probs = b.op('Softmax', [masked], { attrs: { axis: attr.int(-1) }, ...any([1, H, S, S]) });
  const ctx = b.op('MatMul', [probs, v], any([1, H, S, D]));
  const back = b.op(
    'Reshape',
    [b.op('Transpose', [ctx], { attrs: { perm: attr.ints([0, 2, 1, 3]) }, ...any([1, S, H, D]) }), merged],
    any([1, S, E]),
  );
  b.output(b.op('MatMul', [back, b.constant('wo', seeded(E * E, 4, 0.05), [E, E])], any([1, S, E])), 'y');
  return b.build();
}

async function tsge(fused: boolean): Promise<LoadedRuntime> {
  const compiled = await compileModel(attentionBlock(), { optimizationSwitch: { attention: fused } });
  if ((compiled.summary.counters.attention ?? 0) !== (fused ? 1 : 0)) throw new Error('the attention fusion did not apply as expected');
  const model = await loadModel(compiled.om, { threads });
  return {
    name: 'tsge',
    run: (feeds) => model.run(feeds) as Promise<Record<string, HostTensor>>,
    release: () => model.release(),
    whenReady: () => model.whenReady(),
  };
}

/** Median and minimum of `runs` timed runs after one warm-up. */
async function time(runtime: LoadedRuntime, feeds: Record<string, HostTensor>): Promise<{ median: number; min: number; y: Float32Array }> {
  await runtime.whenReady?.();
  const y = (await runtime.run(feeds)).y?.data as Float32Array;
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await runtime.run(feeds);
    ms.push(performance.now() - start);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)] as number, min: ms[0] as number, y: Float32Array.from(y) };
}

const feeds = { x: { type: 'float32' as const, dims: [1, S, E], data: seeded(S * E, 9, 1) } };
const dir = await mkdtemp(path.join(tmpdir(), 'tsge-bench-attention-'));
try {
  const onnx = graphToOnnx(attentionBlock());
  await writeFile(path.join(dir, 'attention.onnx'), onnx);
  const rows: [string, Awaited<ReturnType<typeof time>>][] = [];
  const load = [
    ['tsge (attention fused)', () => tsge(true)],
    ['tsge (decomposed)', () => tsge(false)],
    ['ort-node', () => loadOrtNode(path.join(dir, 'attention.onnx'), threads)],
    ['ort-web', () => loadOrtWeb(onnx, threads)],
  ] as const;
  for (const [name, open] of load) {
    process.stderr.write(`${name} ...\n`);
    const runtime = await open();
    try {
      rows.push([name, await time(runtime, feeds)]);
    } finally {
      await runtime.release();
    }
  }
  const reference = rows.find(([n]) => n === 'ort-node')?.[1];
  const fused = rows[0]?.[1];
  console.log(
    `prefill of one attention block, ${S} tokens, hidden ${E}, ${H} heads × ${D}; ${threads} threads; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log('| runtime | median ms | min ms | fused tsge ÷ this (median) | max |Δy| vs ort-node |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [name, r] of rows) {
    let worst = 0;
    if (reference) for (let i = 0; i < r.y.length; i++) worst = Math.max(worst, Math.abs((r.y[i] as number) - (reference.y[i] as number)));
    const ratio = fused ? (fused.median / r.median).toFixed(2) : '';
    console.log(`| ${name} | ${r.median.toFixed(1)} | ${r.min.toFixed(1)} | ${ratio} | ${worst.toExponential(1)} |`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

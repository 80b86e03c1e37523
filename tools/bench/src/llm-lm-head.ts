// `pnpm bench:llm --lm-head`: the fp32 lm_head alone (MatMul [1, hidden] · [hidden, vocab], B a
// constant), tsge and onnxruntime side by side in one process: ms a run and the rate B streams at.
import { compileModel, defaultRegistries, loadModel } from '@tsge/ge';
import { GraphBuilder, type HostTensor } from '@tsge/metadef';
import { graphToOnnx } from './graph-to-onnx.js';
import { type LoadedRuntime, loadOrtWeb } from './runtimes.js';

const RUNS = 20;

async function best(run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 3; i++) await run();
  let fastest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await run();
    fastest = Math.min(fastest, performance.now() - start);
  }
  return fastest;
}

/** Rows: runtime, best ms of RUNS, GB/s of B; and the largest |Δ| of tsge's output from ort-web's. */
export async function benchLmHead(hidden: number, vocab: number, threads: number): Promise<string[]> {
  const weights = new Float32Array(hidden * vocab);
  let s = 12345;
  for (let i = 0; i < weights.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    weights[i] = (s / 2 ** 32 - 0.5) / Math.sqrt(hidden);
  }
  const { ops } = defaultRegistries();
  const b = new GraphBuilder('lm_head', { ops });
  b.output(b.op('MatMul', [b.input('x', 'float32', [1, hidden]), b.constant('lm_head.weight', weights, [hidden, vocab])]), 'logits');
  const graph = b.build();
  const x: HostTensor = { type: 'float32', dims: [1, hidden], data: Float32Array.from({ length: hidden }, (_, i) => Math.sin(i)) };
  const gb = (ms: number) => ((hidden * vocab * 4) / ms / 1e6).toFixed(1);
  const rows: string[] = [];
  // one node's arena is small: smallModelBytes 0 keeps the worker threads a decoder gets. B packed in
  // panels (the default) and as stored (the column GEMV), measured in alternating rounds
  const variants: { label: string; switches: Record<string, boolean> }[] = [
    { label: 'tsge', switches: {} },
    { label: 'tsge-unpacked', switches: { 'pack-matmul-weights': false } },
  ];
  const models = [];
  for (const v of variants) {
    const m = await loadModel((await compileModel(graph, { optimizationSwitch: v.switches })).om, { threads, smallModelBytes: 0 });
    await m.whenReady();
    models.push(m);
  }
  let ours: Float32Array;
  try {
    const fastest = variants.map(() => Number.POSITIVE_INFINITY);
    for (let round = 0; round < 3; round++)
      for (const [i, m] of models.entries()) fastest[i] = Math.min(fastest[i] as number, await best(() => m.run({ x })));
    ours = ((await (models[0] as (typeof models)[0]).run({ x })).logits as HostTensor).data.slice() as Float32Array;
    for (const [i, v] of variants.entries()) {
      const ms = fastest[i] as number;
      rows.push(`${v.label.padEnd(14)}${ms.toFixed(2).padStart(7)} ms  ${gb(ms).padStart(5)} GB/s`);
    }
  } finally {
    for (const m of models) await m.release();
  }
  const web: LoadedRuntime = await loadOrtWeb(graphToOnnx(graph), threads);
  try {
    const ms = await best(() => web.run({ x }));
    const theirs = (await web.run({ x })).logits?.data as Float32Array;
    let worst = 0;
    for (let i = 0; i < vocab; i++) worst = Math.max(worst, Math.abs((ours[i] as number) - (theirs[i] as number)));
    rows.push(`ort-web       ${ms.toFixed(2).padStart(7)} ms  ${gb(ms).padStart(5)} GB/s   |Δ| vs tsge ${worst.toExponential(1)}`);
  } finally {
    await web.release();
  }
  return rows;
}

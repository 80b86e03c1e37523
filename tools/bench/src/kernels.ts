// Kernel micro-benchmarks: GFLOP/s of tsge's SIMD GEMM (512³, 1024³) against the machine's measured
// SIMD128 peak for the same instruction mix (a register-only multiply-add loop).
import os from 'node:os';
import type { LinearMemory } from '@tsge/metadef';
import { benchmarkSimdConv, benchmarkSimdKernels, measureSimdPeak, simdGemmOnMemory } from '@tsge/ops';

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
  console.log(`MatMul ${n}³: ${g.toFixed(2)} GFLOP/s = ${((100 * g) / peak).toFixed(0)}% of peak`);
}
const conv = best(3, () => benchmarkSimdConv(64, 56, 3));
console.log(`Conv 3×3 64→64 56×56: ${conv.toFixed(2)} GFLOP/s = ${((100 * conv) / peak).toFixed(0)}% of peak`);
// elementwise, pooling, normalisation, Gemm, ConvTranspose and Resize: reference vs 'wasm-simd' kernel, best of runs
for (const r of benchmarkSimdKernels()) {
  const times = `reference ${r.referenceMs.toFixed(2)} ms, wasm-simd ${r.simdMs.toFixed(2)} ms`;
  console.log(`${r.label}: ${times} (×${(r.referenceMs / r.simdMs).toFixed(1)})`);
}

// A/B of gemmTile's register-tile rows (4×8, 5×8, 6×8) in one process, alternating, on one thread:
// the evidence behind GEMM_ROW_BLOCK. Usage: tsx gemm-tile-blocks.ts [M N K]
import { GEMM_ROW_BLOCK, extraModule, gemmTileFunction } from '@tsge/kernels-wasm/kernel-support';
import { wasmMemory } from './peak.js';

type GemmTile = (...args: number[]) => void;
const [M, N, K] = [Number(process.argv[2] ?? 96), Number(process.argv[3] ?? 512), Number(process.argv[4] ?? 512)];
const memory = wasmMemory(Math.ceil((4096 * 3 + (M * K + N * K + M * N) * 4) / 65536) + 16);
const A = 4096;
const B = A + M * K * 4 + 4096;
const C = B + Math.ceil(N / 8) * 8 * K * 4 + 4096;
const f32 = new Float32Array(memory.buffer);
for (let i = A / 4; i < C / 4 + M * N; i++) f32[i] = (i % 7) * 0.01;

function instantiate(rows: number): GemmTile {
  return extraModule(`gemm-tile-blocks-${rows}`, () => [gemmTileFunction(false, false, rows)])(memory)?.gemmTile as GemmTile;
}

function gflops(gemm: GemmTile): number {
  const start = performance.now();
  let calls = 0;
  while (performance.now() - start < 300) {
    gemm(M, N, K, A, K, B, K * 32, C, N, 0, 0, 0, 0, 0);
    calls++;
  }
  return (2 * M * N * K * calls) / ((performance.now() - start) * 1e6);
}

const variants = new Map([4, 5, 6].map((rows) => [rows, instantiate(rows)]));
for (const gemm of variants.values()) gflops(gemm); // tier-up
const results = new Map<number, number[]>();
for (let round = 0; round < 5; round++)
  for (const [rows, gemm] of variants) results.set(rows, [...(results.get(rows) ?? []), gflops(gemm)]);
console.log(`gemmTile ${M}×${N}×${K}, 1 thread, load ${(await import('node:fs')).readFileSync('/proc/loadavg', 'utf8').trim()}`);
for (const [rows, runs] of results) {
  const median = [...runs].sort((a, b) => a - b)[2] as number;
  console.log(
    `${rows}×8${rows === GEMM_ROW_BLOCK ? ' (default)' : ''}: median ${median.toFixed(1)} GFLOP/s [${runs.map((r) => r.toFixed(1)).join(' ')}]`,
  );
}

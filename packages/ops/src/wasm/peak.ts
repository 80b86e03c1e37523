import type { LinearMemory } from '@tsge/metadef';
import { assembleModule, Code, F32, I32, V128 } from './emitter.js';
import { hasRelaxedSimd, hasWasmSimd } from './kernel-modules.js';
import { simdGemm } from './simd-matmul.js';

interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: Record<string, unknown> };
  Memory: new (d: { initial: number }) => LinearMemory;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/**
 * The machine's SIMD128 peak for GEMM's instruction mix: 8 independent f32x4 multiply-add chains
 * in registers (no memory traffic), in GFLOP/s on the calling thread.
 */
export function measureSimdPeak(iterations = 20_000_000): number {
  if (!hasWasmSimd()) return Number.NaN;
  const code = new Code(1);
  const acc = Array.from({ length: 8 }, () => code.local(V128));
  const a = code.local(V128);
  const b = code.local(V128);
  code.f32(1.0000001).f32x4Splat().set(a);
  code.f32(0.9999999).f32x4Splat().set(b);
  code.block().loop();
  code.get(0).i32Eqz().brIf(1);
  for (const r of acc) {
    if (hasRelaxedSimd()) code.get(a).get(b).get(r).f32x4RelaxedMadd().set(r);
    else code.get(r).get(a).get(b).f32x4Mul().f32x4Add().set(r);
  }
  code.get(0).i32(1).i32Sub().set(0);
  code.br(0).end().end();
  code.get(acc[0] as number);
  for (const r of acc.slice(1)) code.get(r).f32x4Add();
  code.f32x4ExtractLane(0);
  const bytes = assembleModule([{ name: 'peak', params: [I32], results: [F32], code }], { shared: false });
  const instance = new wasm.Instance(new wasm.Module(bytes), { env: { memory: new wasm.Memory({ initial: 1 }) } });
  const peak = instance.exports.peak as (n: number) => number;
  peak(100_000);
  const t = performance.now();
  peak(iterations);
  const seconds = (performance.now() - t) / 1000;
  return (iterations * 8 * 4 * 2) / seconds / 1e9;
}

/** Square n×n GEMM on views of `memory` (for micro-benchmarks). */
export function simdGemmOnMemory(memory: LinearMemory, n: number, a: Float32Array, b: Float32Array, c: Float32Array): void {
  simdGemm(memory, { m: n, n, k: n }, { data: a, offset: 0, ld: n }, { data: b, offset: 0, ld: n }, { data: c, offset: 0, ld: n });
}

import { type KernelContextV1, type KernelV1, type LinearMemory, createAttrReader } from '@tsge/metadef';
import { hasRelaxedSimd, hasWasmSimd, wasmKernelLibrary } from '@tsge/kernels-wasm';
import { Code, F32, I32, V128, assembleModule, simdGemm, wasmSimdKernels } from '@tsge/kernels-wasm/kernel-support';

/** The library's per-thread workspace, reserved after the benchmark's tensors as the executor does. */
const { bytesPerThread: THREAD_WORKSPACE_BYTES, bind: bindThreadWorkspace } = wasmKernelLibrary.workspace ?? {
  bytesPerThread: 0,
  bind: () => {},
};

interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: Record<string, unknown> };
  Memory: new (d: { initial: number }) => LinearMemory;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** A plain (unshared) WebAssembly memory of `pages` 64 KiB pages. */
export function wasmMemory(pages: number): LinearMemory {
  return new wasm.Memory({ initial: pages });
}

/**
 * The machine's SIMD128 peak for GEMM's instruction mix: 12 independent f32x4 multiply-add chains
 * in registers (no memory traffic, unrolled 4×), in GFLOP/s on the calling thread.
 */
export function measureSimdPeak(iterations = 20_000_000): number {
  if (!hasWasmSimd()) return Number.NaN;
  const code = new Code(1);
  const acc = Array.from({ length: 12 }, () => code.local(V128));
  const a = code.local(V128);
  const b = code.local(V128);
  code.f32(1.0000001).f32x4Splat().set(a);
  code.f32(0.9999999).f32x4Splat().set(b);
  code.block().loop();
  code.get(0).i32Eqz().brIf(1);
  for (let unroll = 0; unroll < 4; unroll++) {
    for (const r of acc) {
      if (hasRelaxedSimd()) code.get(a).get(b).get(r).f32x4RelaxedMadd().set(r);
      else code.get(r).get(a).get(b).f32x4Mul().f32x4Add().set(r);
    }
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
  return (iterations * 4 * acc.length * 4 * 2) / seconds / 1e9;
}

/** Square n×n GEMM on views of `memory` (for micro-benchmarks). */
export function simdGemmOnMemory(memory: LinearMemory, n: number, a: Float32Array, b: Float32Array, c: Float32Array): void {
  simdGemm(memory, { m: n, n, k: n }, { data: a, offset: 0, ld: n }, { data: b, offset: 0, ld: n }, { data: c, offset: 0, ld: n });
}

/**
 * GFLOP/s of the SIMD Conv kernel on a 3×3, pad-1 convolution of `channels`→`channels` over
 * size×size (one image), timed over `reps` runs on the calling thread.
 */
export function benchmarkSimdConv(channels: number, size: number, reps: number): number {
  const xCount = channels * size * size;
  const wCount = channels * channels * 9;
  const pages = Math.ceil(((2 * xCount + wCount + channels) * 4 + 4096) / 65536) + 1;
  const memory = new wasm.Memory({ initial: pages + THREAD_WORKSPACE_BYTES / 65536 });
  bindThreadWorkspace(memory, pages * 65536, THREAD_WORKSPACE_BYTES);
  let offset = 64;
  const view = (count: number): Float32Array => {
    const v = new Float32Array(memory.buffer, offset, count);
    offset += Math.ceil((count * 4) / 64) * 64;
    return v;
  };
  const x = view(xCount).fill(0.5);
  const w = view(wCount).fill(0.01);
  const b = view(channels).fill(0);
  const y = view(xCount);
  const tensors = [
    { type: 'float32' as const, dims: [1, channels, size, size], data: x },
    { type: 'float32' as const, dims: [channels, channels, 3, 3], data: w },
    { type: 'float32' as const, dims: [channels], data: b },
  ];
  const attrs = new Map([['pads', { kind: 'ints' as const, value: [1, 1, 1, 1] }]]);
  const kernel = wasmSimdKernels().find((k) => k.opType === 'Conv') as KernelV1;
  const ctx: KernelContextV1 = {
    nodeName: 'bench',
    opType: 'Conv',
    attrs: createAttrReader(attrs),
    inputCount: 3,
    outputCount: 1,
    opsetVersion: 22,
    memory,
    input: (i) => tensors[i],
    tensor: (i) => tensors[i],
    output: (_i, dims) => ({ type: 'float32', dims: [...dims], data: y }),
    setOutput: () => {},
    runSubgraph: () => [],
  };
  kernel.compute(ctx);
  const t = performance.now();
  for (let r = 0; r < reps; r++) kernel.compute(ctx);
  const seconds = (performance.now() - t) / 1000;
  return (2 * channels * channels * 9 * size * size * reps) / seconds / 1e9;
}

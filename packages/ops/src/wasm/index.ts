// WebAssembly SIMD kernels (generated at load time by a small emitter; no toolchain needed).
export { hasWasmSimd, hasRelaxedSimd, simdKernels, type SimdKernelExports } from './kernel-modules.js';
export { simdGemm, simdMatMulKernel, inMemory } from './simd-matmul.js';
export { benchmarkSimdConv, measureSimdPeak, simdGemmOnMemory } from './peak.js';
export { simdConvKernel } from './simd-conv.js';
export { wasmSimdKernels } from './simd-kernels.js';
export { registerTileFunction, runTile, runTiles, splitRange, type TileFunction } from './tiles.js';
export {
  benchmarkSimdKernels,
  KERNEL_BENCHMARK_CASES,
  type KernelBenchmarkCase,
  type KernelBenchmarkResult,
} from './kernel-benchmark.js';
export { bindThreadWorkspace, threadWorkspace, THREAD_WORKSPACE_BYTES } from './thread-workspace.js';

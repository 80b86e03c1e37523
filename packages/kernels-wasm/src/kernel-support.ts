/**
 * `@tsge/kernels-wasm/kernel-support`: the emitter and the raw SIMD routines, for the kernel
 * benchmarks (tools/bench) and other kernel libraries. Not part of the user-facing API.
 */
export { assembleModule, Code, F32, I32, V128 } from './emitter.js';
export { GEMM_ROW_BLOCK, gemmTileFunction } from './gemm-tile-module.js';
export { extraModule } from './extra-modules.js';
export { simdKernels, type SimdKernelExports } from './kernel-modules.js';
export { simdGemm, simdMatMulKernel, inMemory } from './simd-matmul.js';
export { simdConvKernel } from './simd-conv.js';
export { wasmSimdKernels } from './simd-kernels.js';
export { runTiles, splitRange, tileFunction, type NumberTuple } from './tiles.js';
export { threadWorkspace } from './thread-workspace.js';

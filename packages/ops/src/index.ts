// @tsge/ops public API: the canonical op set (ONNX, latest opset) with reference kernels.
import type { KernelRegistry, KernelV1, OpDefinitionV1, OpRegistry } from '@tsge/metadef';
import { createOpRegistry } from '@tsge/metadef';
import { controlflowKernels, controlflowOps } from './controlflow/index.js';
import { createKernelRegistry } from './kernel-registry.js';
import { mathKernels, mathOps } from './math/index.js';
import { mlKernels, mlOps } from './ml/index.js';
import { nnKernels, nnOps } from './nn/index.js';
import { tensorKernels, tensorOps } from './tensor/index.js';
import { transformerKernels, transformerOps } from './transformer/index.js';
import { wasmSimdKernels } from './wasm/index.js';

export { createKernelRegistry } from './kernel-registry.js';
export { defineOp, defineKernel, param, type OpSpec, type KernelSpec } from './define.js';
export { runKernelOnHost, type HostRunOptions } from './host/run-on-host.js';
export { benchmarkSimdConv, hasWasmSimd, hasRelaxedSimd, measureSimdPeak, simdGemmOnMemory, wasmSimdKernels } from './wasm/index.js';
/** Reference against 'wasm-simd' kernel timings on shapes from PP-OCRv4 and ResNet-50 (`pnpm bench:kernels`). */
export { benchmarkSimdKernels, KERNEL_BENCHMARK_CASES, type KernelBenchmarkCase, type KernelBenchmarkResult } from './wasm/index.js';
/** Runs one intra-op tile by name (helper threads of the executor call it). */
export { runTile, type TileFunction } from './wasm/index.js';

/** Every op definition tsge ships. */
export function defaultOpDefinitions(): readonly OpDefinitionV1[] {
  return [...mathOps, ...nnOps, ...tensorOps, ...transformerOps, ...controlflowOps, ...mlOps];
}
/** Every reference kernel tsge ships. */
export function referenceKernels(): readonly KernelV1[] {
  return [...mathKernels, ...nnKernels, ...tensorKernels, ...transformerKernels, ...controlflowKernels, ...mlKernels];
}
/** A fresh registry holding every op definition. */
export function createDefaultOpRegistry(): OpRegistry {
  return createOpRegistry(defaultOpDefinitions());
}
/** A fresh registry holding every reference kernel and the WebAssembly SIMD kernels. */
export function createDefaultKernelRegistry(): KernelRegistry {
  return createKernelRegistry([...referenceKernels(), ...wasmSimdKernels()]);
}

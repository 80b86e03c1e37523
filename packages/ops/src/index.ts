// @tsge/ops public API: the canonical op set (ONNX, latest opset) with reference kernels.
import type { KernelRegistry, KernelV1, OpDefinitionV1, OpRegistry } from '@tsge/metadef';
import { TSGE_DOMAIN, createOpRegistry } from '@tsge/metadef';
import { controlflowKernels, controlflowOps } from './controlflow/index.js';
import { fusedDefinitions, fusedKernels } from './fused/index.js';
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
/** Per-thread workspace in device memory: the executor reserves and binds one region per thread. */
export { bindThreadWorkspace, THREAD_WORKSPACE_BYTES } from './wasm/index.js';

export {
  FUSED_CONV,
  FUSED_GEMM,
  FUSED_MATMUL,
  FUSED_BASE_OF,
  FUSABLE_ACTIVATIONS,
  type FusableActivation,
  applyActivation,
  fusedDefinitions,
  fusedKernels,
} from './fused/index.js';

/** Every op definition tsge ships: the ONNX op set plus the `tsge` fused ops. */
export function defaultOpDefinitions(): readonly OpDefinitionV1[] {
  const onnx = [...mathOps, ...nnOps, ...tensorOps, ...transformerOps, ...controlflowOps, ...mlOps];
  return [...onnx, ...fusedDefinitions(onnx)];
}
/** Every reference kernel tsge ships (fused ops included). */
export function referenceKernels(): readonly KernelV1[] {
  const onnx = [...mathKernels, ...nnKernels, ...tensorKernels, ...transformerKernels, ...controlflowKernels, ...mlKernels];
  return [...onnx, ...fusedKernels(onnx)];
}
/** A fresh registry holding every op definition. */
export function createDefaultOpRegistry(): OpRegistry {
  return createOpRegistry(defaultOpDefinitions());
}
/** A fresh registry holding every reference kernel and the WebAssembly SIMD kernels. */
export function createDefaultKernelRegistry(): KernelRegistry {
  const simd = wasmSimdKernels();
  // fused ops with a SIMD kernel of their own are not wrapped around the base kernel again
  const own = new Set(simd.filter((k) => k.domain === TSGE_DOMAIN).map((k) => k.opType));
  return createKernelRegistry([...referenceKernels(), ...simd, ...fusedKernels(simd).filter((k) => !own.has(k.opType))]);
}

import type { KernelLibraryV1, KernelV1 } from '@tsge/metadef';
import { controlflowKernels } from './controlflow/index.js';
import { fusedKernels } from './fused/index.js';
import { fusedElementwiseKernel } from './fused/fused-elementwise.js';
import { mathKernels } from './math/index.js';
import { mlKernels } from './ml/index.js';
import { nnKernels } from './nn/index.js';
import { tensorKernels } from './tensor/index.js';
import { transformerKernels } from './transformer/index.js';

/** Every reference kernel tsge ships (fused ops included), in one explicit list. */
export function referenceKernels(): readonly KernelV1[] {
  const onnx = [...mathKernels, ...nnKernels, ...tensorKernels, ...transformerKernels, ...controlflowKernels, ...mlKernels];
  return [...onnx, ...fusedKernels(onnx), fusedElementwiseKernel];
}

/**
 * The reference kernel library (kernels named 'reference'): plain TypeScript over host arrays, one
 * kernel for every op of @tsge/ops. It runs anywhere — constant folding in the compiler, host mode,
 * the plain-JS target — and is the fallback of every faster library.
 */
export const jsKernelLibrary: KernelLibraryV1 = {
  specVersion: 'v1',
  name: '@tsge/kernels-js',
  device: 'host',
  kernels: referenceKernels(),
  tiles: [],
};

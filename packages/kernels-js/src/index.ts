// @tsge/kernels-js public API: the portable reference kernels of every op in @tsge/ops.
export { jsKernelLibrary, referenceKernels } from './library.js';
export { defineKernel, type KernelSpec } from './define.js';
export { runKernelOnHost, type HostRunOptions } from './host/run-on-host.js';
export { fusedKernels, applyActivation } from './fused/index.js';
export {
  interpretGraph,
  interpretSubgraph,
  runNodeOnHost,
  formalInputCount,
  type InterpretOptions,
  type SubgraphRequest,
} from './host/interpret-graph.js';

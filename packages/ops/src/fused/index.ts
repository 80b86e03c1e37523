export { FUSED_CONV, FUSED_GEMM, FUSED_MATMUL, FUSED_BASE_OF, fusedDefinitions, fusedKernels } from './fused-ops.js';
export { FUSABLE_ACTIVATIONS, type FusableActivation, applyActivation } from './activation.js';

export { fusedKernels } from './fused-ops.js';
export { applyActivation } from './activation.js';

import type { KernelV1, OpDefinitionV1 } from '@tsge/metadef';
import { ifLoopScanKernels, ifLoopScanOps } from './if-loop-scan.js';
import { optionalMapKernels, optionalMapOps } from './optional-map.js';
import { sequenceKernels, sequenceOps } from './sequence.js';

/** Op definitions of the controlflow group. */
export const controlflowOps: readonly OpDefinitionV1[] = [...ifLoopScanOps, ...sequenceOps, ...optionalMapOps];
/** Reference kernels of the controlflow group. */
export const controlflowKernels: readonly KernelV1[] = [...ifLoopScanKernels, ...sequenceKernels, ...optionalMapKernels];

import type { KernelV1 } from '@tsge/metadef';
import { ifLoopScanKernels } from './if-loop-scan.js';
import { optionalMapKernels } from './optional-map.js';
import { sequenceSlotKernels } from './sequence-slots.js';
import { sequenceKernels } from './sequence.js';
/** Reference kernels of the controlflow group. */
export const controlflowKernels: readonly KernelV1[] = [
  ...ifLoopScanKernels,
  ...sequenceKernels,
  ...sequenceSlotKernels,
  ...optionalMapKernels,
];

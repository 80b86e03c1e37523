import type { KernelV1 } from '@tsge/metadef';
import { concatSplitKernels } from './concat-split.js';
import { depthSpaceKernels } from './depth-space.js';
import { expandTileKernels } from './expand-tile.js';
import { gatherKernels } from './gather.js';
import { identityConstantKernels } from './identity-constant.js';
import { oneHotKernels } from './one-hot.js';
import { padKernels } from './pad.js';
import { reshapeKernels } from './reshape.js';
import { reverseSequenceKernels } from './reverse-sequence.js';
import { scatterKernels } from './scatter.js';
import { selectKernels } from './select.js';
import { shapeKernels } from './shape-ops.js';
import { sliceKernels } from './slice.js';
import { transposeKernels } from './transpose.js';
import { uniqueKernels } from './unique.js';
/** Reference kernels of the tensor group. */
export const tensorKernels: readonly KernelV1[] = [
  ...shapeKernels,
  ...reshapeKernels,
  ...transposeKernels,
  ...concatSplitKernels,
  ...sliceKernels,
  ...gatherKernels,
  ...scatterKernels,
  ...expandTileKernels,
  ...padKernels,
  ...depthSpaceKernels,
  ...oneHotKernels,
  ...selectKernels,
  ...reverseSequenceKernels,
  ...identityConstantKernels,
  ...uniqueKernels,
];

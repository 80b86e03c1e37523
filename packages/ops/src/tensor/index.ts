import type { KernelV1, OpDefinitionV1 } from '@tsge/metadef';
import { concatSplitKernels, concatSplitOps } from './concat-split.js';
import { depthSpaceKernels, depthSpaceOps } from './depth-space.js';
import { expandTileKernels, expandTileOps } from './expand-tile.js';
import { gatherKernels, gatherOps } from './gather.js';
import { identityConstantKernels, identityConstantOps } from './identity-constant.js';
import { oneHotKernels, oneHotOps } from './one-hot.js';
import { padKernels, padOps } from './pad.js';
import { reshapeKernels, reshapeOps } from './reshape.js';
import { reverseSequenceKernels, reverseSequenceOps } from './reverse-sequence.js';
import { scatterKernels, scatterOps } from './scatter.js';
import { selectKernels, selectOps } from './select.js';
import { shapeKernels, shapeOps } from './shape-ops.js';
import { sliceKernels, sliceOps } from './slice.js';
import { transposeKernels, transposeOps } from './transpose.js';
import { uniqueKernels, uniqueOps } from './unique.js';

/** Op definitions of the tensor group. */
export const tensorOps: readonly OpDefinitionV1[] = [
  ...shapeOps,
  ...reshapeOps,
  ...transposeOps,
  ...concatSplitOps,
  ...sliceOps,
  ...gatherOps,
  ...scatterOps,
  ...expandTileOps,
  ...padOps,
  ...depthSpaceOps,
  ...oneHotOps,
  ...selectOps,
  ...reverseSequenceOps,
  ...identityConstantOps,
  ...uniqueOps,
];
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

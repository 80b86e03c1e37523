import type { OpDefinitionV1 } from '@tsge/metadef';
import { concatSplitOps } from './concat-split.js';
import { depthSpaceOps } from './depth-space.js';
import { expandTileOps } from './expand-tile.js';
import { gatherOps } from './gather.js';
import { identityConstantOps } from './identity-constant.js';
import { oneHotOps } from './one-hot.js';
import { padOps } from './pad.js';
import { reshapeOps } from './reshape.js';
import { reverseSequenceOps } from './reverse-sequence.js';
import { scatterOps } from './scatter.js';
import { selectOps } from './select.js';
import { shapeOps } from './shape-ops.js';
import { sliceOps } from './slice.js';
import { transposeOps } from './transpose.js';
import { uniqueOps } from './unique.js';

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

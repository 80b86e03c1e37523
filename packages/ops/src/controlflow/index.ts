import type { OpDefinitionV1 } from '@tsge/metadef';
import { ifLoopScanOps } from './if-loop-scan.js';
import { optionalMapOps } from './optional-map.js';
import { sequenceOps } from './sequence.js';

/** Op definitions of the controlflow group. */
export const controlflowOps: readonly OpDefinitionV1[] = [...ifLoopScanOps, ...sequenceOps, ...optionalMapOps];

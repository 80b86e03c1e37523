import type { OpDefinitionV1 } from '@tsge/metadef';
import { binaryArithmeticOps } from './binary-arithmetic.js';
import { castOps } from './cast.js';
import { matmulOps } from './matmul.js';
import { reduceOps } from './reduce.js';
import { triluOps } from './trilu.js';
import { cumulativeOps } from './cumulative.js';
import { clipShrinkOps } from './clip-shrink.js';
import { topkHardmaxOps } from './topk-hardmax.js';
import { generatorOps } from './generators.js';
import { einsumOps } from './einsum.js';
import { signalOps } from './signal.js';
import { stringOps } from './strings.js';
import { tfidfOps } from './tfidf.js';
import { bitwiseOps } from './bitwise.js';
import { comparisonOps } from './comparison.js';
import { logicalOps } from './logical.js';
import { unaryOps } from './unary.js';
import { variadicOps } from './variadic.js';
import { whereOps } from './where.js';

/** Op definitions of the math group. */
export const mathOps: readonly OpDefinitionV1[] = [
  ...binaryArithmeticOps,
  ...bitwiseOps,
  ...comparisonOps,
  ...logicalOps,
  ...unaryOps,
  ...variadicOps,
  ...whereOps,
  ...tfidfOps,
  ...stringOps,
  ...signalOps,
  ...einsumOps,
  ...generatorOps,
  ...topkHardmaxOps,
  ...clipShrinkOps,
  ...cumulativeOps,
  ...triluOps,
  ...reduceOps,
  ...matmulOps,
  ...castOps,
];

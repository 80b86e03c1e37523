import type { KernelV1, OpDefinitionV1 } from '@tsge/metadef';
import { binaryArithmeticKernels, binaryArithmeticOps } from './binary-arithmetic.js';
import { castKernels, castOps } from './cast.js';
import { matmulKernels, matmulOps } from './matmul.js';
import { reduceKernels, reduceOps } from './reduce.js';
import { triluKernels, triluOps } from './trilu.js';
import { cumulativeKernels, cumulativeOps } from './cumulative.js';
import { clipShrinkKernels, clipShrinkOps } from './clip-shrink.js';
import { topkHardmaxKernels, topkHardmaxOps } from './topk-hardmax.js';
import { generatorKernels, generatorOps } from './generators.js';
import { einsumKernels, einsumOps } from './einsum.js';
import { signalKernels, signalOps } from './signal.js';
import { stringKernels, stringOps } from './strings.js';
import { tfidfKernels, tfidfOps } from './tfidf.js';
import { bitwiseKernels, bitwiseOps } from './bitwise.js';
import { comparisonKernels, comparisonOps } from './comparison.js';
import { logicalKernels, logicalOps } from './logical.js';
import { unaryKernels, unaryOps } from './unary.js';
import { variadicKernels, variadicOps } from './variadic.js';
import { whereKernels, whereOps } from './where.js';

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
/** Reference kernels of the math group. */
export const mathKernels: readonly KernelV1[] = [
  ...binaryArithmeticKernels,
  ...bitwiseKernels,
  ...comparisonKernels,
  ...logicalKernels,
  ...unaryKernels,
  ...variadicKernels,
  ...whereKernels,
  ...tfidfKernels,
  ...stringKernels,
  ...signalKernels,
  ...einsumKernels,
  ...generatorKernels,
  ...topkHardmaxKernels,
  ...clipShrinkKernels,
  ...cumulativeKernels,
  ...triluKernels,
  ...reduceKernels,
  ...matmulKernels,
  ...castKernels,
];

import type { KernelV1 } from '@tsge/metadef';
import { binaryArithmeticKernels } from './binary-arithmetic.js';
import { castKernels } from './cast.js';
import { matmulKernels } from './matmul.js';
import { reduceKernels } from './reduce.js';
import { triluKernels } from './trilu.js';
import { cumulativeKernels } from './cumulative.js';
import { clipShrinkKernels } from './clip-shrink.js';
import { topkHardmaxKernels } from './topk-hardmax.js';
import { generatorKernels } from './generators.js';
import { einsumKernels } from './einsum.js';
import { signalKernels } from './signal.js';
import { stringKernels } from './strings.js';
import { tfidfKernels } from './tfidf.js';
import { bitwiseKernels } from './bitwise.js';
import { comparisonKernels } from './comparison.js';
import { logicalKernels } from './logical.js';
import { unaryKernels } from './unary.js';
import { variadicKernels } from './variadic.js';
import { whereKernels } from './where.js';
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

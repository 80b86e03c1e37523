import type { OpDefinitionV1, ValueInfo } from '@tsge/metadef';
import { AttrError, InferenceError, attr, createTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { inferOnValues } from '../common/tensor-harness.js';
import { controlflowOps } from '../controlflow/index.js';
import { mlOps } from '../ml/index.js';
import { tensorOps } from './index.js';

// Odd but well-typed input infos: inference may reject them, but only with InferenceError/AttrError.
const infos: (ValueInfo | undefined)[][] = [
  [],
  [undefined, undefined],
  [
    { dtype: 'float32', shape: [-2] },
    { dtype: 'int64', shape: [-2] },
    { dtype: 'float32', shape: [-2] },
  ],
  [
    { dtype: 'float32', shape: [] },
    { dtype: 'int64', shape: [] },
  ],
  [
    { dtype: 'float32', shape: ['n', 3] },
    { dtype: 'int64', shape: [2] },
    { dtype: 'float32', shape: ['n', 3] },
    { dtype: 'int64', shape: [1] },
  ],
  [
    { kind: 'sequence', dtype: 'float32', shape: [-2] },
    { dtype: 'int64', shape: [] },
  ],
];
const values = [[], [undefined, createTensor('int64', [2], BigInt64Array.of(-5n, 9n)), createTensor('int64', [1], BigInt64Array.of(0n))]];
const attrSets = [
  new Map(),
  new Map([
    ['axis', attr.int(9)],
    ['perm', attr.ints([1])],
    ['num_scan_inputs', attr.int(4)],
  ]),
];

describe('inference on odd inputs', () => {
  const defs: OpDefinitionV1[] = [...tensorOps, ...controlflowOps, ...mlOps];
  for (const def of defs) {
    it(`${def.type} rejects only with InferenceError or AttrError`, () => {
      for (const inputs of infos) {
        for (const v of values) {
          for (const attrs of attrSets) {
            try {
              inferOnValues(def, inputs, { attrs, values: v, outputCount: 2, inferSubgraph: () => [] });
            } catch (e) {
              if (!(e instanceof InferenceError || e instanceof AttrError))
                expect.fail(`${def.type} threw ${(e as Error).name}: ${(e as Error).message}`);
            }
          }
        }
      }
    });
  }
});

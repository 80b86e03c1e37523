import { elementwiseConverters } from './elementwise.js';
import { nnConverters } from './nn.js';
import { reduceConverters } from './reduce.js';
import type { ConverterTable } from './registry.js';
import { tensorListConverters } from './tensor-list.js';
import { tensorConverters } from './tensor.js';

/** Every TF op the parser maps into the canonical op set. */
export const converters: ConverterTable = {
  ...elementwiseConverters,
  ...tensorConverters,
  ...nnConverters,
  ...reduceConverters,
  ...tensorListConverters,
};

/** The TF op types the parser converts (for docs and the unsupported-op diagnostic). */
export function supportedTfOps(): string[] {
  return Object.keys(converters).sort();
}

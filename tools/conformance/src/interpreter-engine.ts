import { createKernelRegistryOf } from '@tsge/metadef';
import { jsKernelLibrary } from '@tsge/kernels-js';
import type { Engine } from './engine.js';
import { interpret } from './interpreter.js';

/** Parser → Graph → the host interpreter with the reference kernels. */
export function createInterpreterEngine(): Engine {
  const kernels = createKernelRegistryOf([jsKernelLibrary]);
  return {
    name: 'interpreter',
    async prepare(graph) {
      return {
        run: async (inputs) => interpret(graph, inputs, { kernels }),
        release: async () => {},
      };
    },
  };
}

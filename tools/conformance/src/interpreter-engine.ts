import { createKernelRegistryOf } from '@tsge/metadef';
import { interpretGraph, jsKernelLibrary } from '@tsge/kernels-js';
import type { Engine } from './engine.js';

/** Parser → Graph → the one host interpreter (@tsge/kernels-js) with the reference kernels. */
export function createInterpreterEngine(): Engine {
  const kernels = createKernelRegistryOf([jsKernelLibrary]);
  return {
    name: 'interpreter',
    async prepare(graph) {
      return {
        run: async (inputs) => interpretGraph(graph, inputs, { kernels }),
        release: async () => {},
      };
    },
  };
}

import { createDefaultKernelRegistry } from '@tsge/ops';
import type { Engine } from './engine.js';
import { interpret } from './interpreter.js';

/** Parser → Graph → the host interpreter with the reference kernels. */
export function createInterpreterEngine(): Engine {
  const kernels = createDefaultKernelRegistry();
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

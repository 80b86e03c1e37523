import { buildModel, loadModel, parseModel } from '@tsge/ge';
import type { Graph, RuntimeValue } from '@tsge/metadef';
import type { Engine } from './engine.js';

/** The public path: @tsge/ge parseModel → buildModel (.om) → loadModel → run, outputs by name. */
export function createPipelineEngine(mode: 'sink' | 'host' = 'sink'): Engine {
  return {
    name: mode === 'host' ? 'pipeline-host' : 'pipeline',
    async prepare(_graph, _bytes, modelPath) {
      const graph: Graph = await parseModel(modelPath);
      const outputNames = graph.outputNode()?.opDesc.inputNames ?? [];
      const om = await buildModel(graph);
      // one thread: the model runs on the calling thread (sink task lists), no worker start-up per test
      const loaded = await loadModel(om, { threads: 1, mode });
      return {
        async run(inputs, inputNames) {
          const feeds: Record<string, RuntimeValue> = {};
          inputNames.forEach((name, i) => {
            const v = inputs[i];
            if (v !== undefined) feeds[name] = v;
          });
          const out = (await loaded.run(feeds as never)) as Record<string, RuntimeValue>;
          return outputNames.map((name) => out[name]);
        },
        release: () => loaded.release(),
      };
    },
  };
}

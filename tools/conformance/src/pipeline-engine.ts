import { buildModel, loadModel, parseModel } from '@tsge/ge';
import type { Graph, RuntimeValue } from '@tsge/metadef';
import type { Engine } from './engine.js';
import type { DeviceName } from './engines.js';

/**
 * The public path: @tsge/ge parseModel → buildModel (.om) → loadModel → run, outputs by name. On
 * device 'js' the model is compiled for target js (the portable kernels) and loaded on the js device.
 */
export function createPipelineEngine(mode: 'sink' | 'host' = 'sink', device: DeviceName = 'cpu'): Engine {
  return {
    name: `${mode === 'host' ? 'pipeline-host' : 'pipeline'}${device === 'cpu' ? '' : `@${device}`}`,
    async prepare(_graph, _bytes, modelPath) {
      const graph: Graph = await parseModel(modelPath);
      const outputNames = graph.outputNode()?.opDesc.inputNames ?? [];
      const om = await buildModel(graph, device === 'js' ? { target: 'js' } : {});
      // one thread: the model runs on the calling thread (sink task lists), no worker start-up per test
      const loaded = await loadModel(om, { threads: 1, mode, device });
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

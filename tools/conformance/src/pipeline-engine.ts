import type { RuntimeValue } from '@tsge/metadef';
import type { Engine } from './engine.js';

/** The subset of @tsge/ge the pipeline engine uses (loaded lazily so the interpreter works without it). */
interface GeApi {
  parseModel(source: Uint8Array | string, options?: Record<string, unknown>): Promise<unknown> | unknown;
  buildModel(graph: unknown, options?: Record<string, unknown>): Promise<Uint8Array>;
  loadModel(
    bytes: Uint8Array,
    options?: Record<string, unknown>,
  ): Promise<{ run(feeds: Record<string, RuntimeValue>): Promise<Record<string, RuntimeValue>>; release(): Promise<void> }>;
}

/** The public path: @tsge/ge parseModel → buildModel (.om) → loadModel → run. */
export async function createPipelineEngine(): Promise<Engine> {
  const moduleName = '@tsge/ge';
  let ge: GeApi;
  try {
    ge = (await import(moduleName)) as GeApi;
  } catch (error) {
    throw new Error(`the pipeline engine needs @tsge/ge: ${error instanceof Error ? error.message : String(error)}`);
  }
  return {
    name: 'pipeline',
    async prepare(_graph, _bytes, modelPath) {
      const graph = await ge.parseModel(modelPath);
      const om = await ge.buildModel(graph);
      const loaded = await ge.loadModel(om);
      return {
        async run(inputs, inputNames) {
          const feeds: Record<string, RuntimeValue> = {};
          inputNames.forEach((name, i) => {
            const v = inputs[i];
            if (v !== undefined) feeds[name] = v;
          });
          const out = await loaded.run(feeds);
          const outputNames = Object.keys(out);
          return _graph.outputNode()?.opDesc.inputNames.map((n, i) => out[n] ?? out[outputNames[i] as string]) ?? Object.values(out);
        },
        release: () => loaded.release(),
      };
    },
  };
}

import type { HostTensor } from '@tsge/metadef';
import { createTensor, elementCount } from '@tsge/metadef';
import { concreteDims, createRandom, randomTensor } from '@tsge/run';
import type { BenchModel } from './models.js';

function arangeInput(dims: readonly number[]): HostTensor {
  const n = elementCount(dims);
  const t = createTensor('float32', dims);
  const d = t.data as Float32Array;
  for (let i = 0; i < n; i++) d[i] = i / n;
  return t;
}

type InputMeta = { readonly name: string; readonly dtype: HostTensor['type']; readonly shape: Parameters<typeof concreteDims>[1] };

/** The bench's inputs for `model` (seeded random, or arange(n)/n for the light suite), the same for every runtime. */
export function benchFeeds(model: BenchModel, inputs: readonly InputMeta[]): Record<string, HostTensor> {
  const random = createRandom(7);
  const feeds: Record<string, HostTensor> = {};
  for (const meta of inputs) {
    const dims = concreteDims(meta.name, meta.shape, model.inputShapes[meta.name]);
    feeds[meta.name] = model.input === 'arange' && meta.dtype === 'float32' ? arangeInput(dims) : randomTensor(meta.dtype, dims, random);
  }
  return feeds;
}

/**
 * tsge's `LoadModelOptions.warmUp` for these feeds: a model with run-time dims is warmed at load
 * only on shapes its caller names (as TF Serving's warm-up requests or TensorRT's optimisation
 * profile), so the bench names the shapes it runs; a static model warms on its own.
 */
export function warmUpShapes(feeds: Record<string, HostTensor>): { shapes: Record<string, readonly number[]> } {
  return { shapes: Object.fromEntries(Object.entries(feeds).map(([name, t]) => [name, t.dims])) };
}

import type { ModelJson } from './model-source.js';

interface LayerJson {
  readonly class_name?: unknown;
  readonly config?: unknown;
}

/**
 * The names TensorFlow.js gives a layers model's input and output SymbolicTensors, from its Keras
 * topology: a Sequential model's input is `<first layer>_input` (or its InputLayer's name), a
 * functional model's are its InputLayers' names; an output of layer L is `L/L` (`L/L_k` for its
 * k-th tensor), as tfjs names tensors under the layer's name scope. tfjs adds a further `_n` when a
 * process builds the same names twice; these are the names of a fresh process. Undefined where
 * the topology does not say (then the parser's names stand).
 */
export function layersTensorNames(json: ModelJson): { inputs?: string[]; outputs?: string[] } {
  const topology = json.modelTopology as { model_config?: unknown } | undefined;
  const model = (topology?.model_config ?? topology) as LayerJson | undefined;
  const config = model?.config as { layers?: unknown; input_layers?: unknown; output_layers?: unknown } | unknown[] | undefined;
  const layers = (Array.isArray(config) ? config : config?.layers) as LayerJson[] | undefined;
  if (!Array.isArray(layers) || layers.length === 0) return {};
  const nameOf = (layer: LayerJson | undefined): string | undefined => {
    const name = (layer?.config as { name?: unknown } | undefined)?.name;
    return typeof name === 'string' ? name : undefined;
  };
  const scoped = (layer: string | undefined, tensor = 0): string | undefined =>
    layer === undefined ? undefined : `${layer}/${layer}${tensor > 0 ? `_${tensor}` : ''}`;
  const known = (names: (string | undefined)[]): string[] | undefined =>
    names.every((n) => n !== undefined) ? (names as string[]) : undefined;
  if (model?.class_name === 'Sequential') {
    const first = layers[0];
    const input = first?.class_name === 'InputLayer' ? nameOf(first) : nameOf(first) && `${nameOf(first)}_input`;
    const last = layers.at(-1);
    const output = last?.class_name === 'InputLayer' ? input : scoped(nameOf(last));
    return { ...(input ? { inputs: [input] } : {}), ...(output ? { outputs: [output] } : {}) };
  }
  if (Array.isArray(config)) return {};
  // functional: [layer, node index, tensor index] entries; a layer applied again (node > 0) gets a
  // suffix that depends on how many tensors it made before, which the topology does not give
  const entries = (list: unknown): [string, number, number][] | undefined =>
    Array.isArray(list) &&
    list.every((e) => Array.isArray(e) && typeof e[0] === 'string' && (e[1] ?? 0) === 0 && Number.isSafeInteger(e[2] ?? 0))
      ? list.map((e) => [e[0] as string, 0, Number(e[2] ?? 0)])
      : undefined;
  const ins = entries(config?.input_layers);
  const outs = entries(config?.output_layers);
  const inputLayers = new Set(layers.filter((l) => l.class_name === 'InputLayer').map(nameOf));
  const inputs = ins && known(ins.map(([layer]) => layer));
  const outputs = outs && known(outs.map(([layer, , tensor]) => (inputLayers.has(layer) ? layer : scoped(layer, tensor))));
  return { ...(inputs ? { inputs } : {}), ...(outputs ? { outputs } : {}) };
}

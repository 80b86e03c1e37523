import { type Diagnostic, type Graph, type Shape, TsgeError, attr, diagnostic } from '@tsge/metadef';
import { DATA_LAYERS, LAYER_CONVERTERS } from '../layers/registry.js';
import type { Layer, Net } from '../net/net-model.js';
import { type BlobRef, LayerContext, NetContext, type WeightSource } from './context.js';

/** The canonical op set version the emitted nodes follow (Split sizes, Reduce axes, Pad pads as inputs). */
export const CAFFE_ONNX_OPSET = 21;

/** Layers Caffe uses only in training: a deploy network never has them. */
const TRAINING_LAYERS = new Set([
  'Accuracy',
  'SoftmaxWithLoss',
  'EuclideanLoss',
  'HingeLoss',
  'InfogainLoss',
  'MultinomialLogisticLoss',
  'SigmoidCrossEntropyLoss',
  'ContrastiveLoss',
  'MultiBoxLoss',
]);

export interface ConvertOptions {
  readonly weights: WeightSource;
  readonly inputShapes?: ReadonlyMap<string, Shape> | undefined;
  readonly outputNodes?: readonly string[] | undefined;
  readonly file?: string | undefined;
}

export interface ConvertResult {
  readonly graph: Graph;
  readonly missingWeights: readonly string[];
}

function concreteShape(shape: Shape, name: string): number[] {
  const dims = shape.map((d) => (typeof d === 'number' ? d : Number.NaN));
  if (dims.some((d) => !Number.isSafeInteger(d) || d < 0)) {
    throw TsgeError.of(
      'TSGE-E3209',
      { input: name, reason: `shape [${shape.join(',')}] must be static: Caffe networks have fixed shapes` },
      { input: name },
    );
  }
  return dims;
}

/**
 * Builds the graph: inputs, then every layer in order with Caffe's blob semantics (a top that
 * reuses a bottom's name replaces it, in place), then the graph outputs: the blobs no later layer
 * consumes (Caffe's net outputs), or the `outputNodes` asked for.
 */
export function convertNet(net: Net, options: ConvertOptions, diagnostics: Diagnostic[]): ConvertResult {
  const context = new NetContext(net.name, options.weights, diagnostics, options.file);
  const builder = context.builder;
  const blobs = new Map<string, BlobRef>();
  /** Blobs not consumed yet, in the order they were last produced. */
  const available: string[] = [];
  const produced = new Map<string, readonly BlobRef[]>();
  const usedInputs = new Set<string>();
  const setBlob = (name: string, ref: BlobRef) => {
    blobs.set(name, ref);
    const at = available.indexOf(name);
    if (at >= 0) available.splice(at, 1);
    available.push(name);
  };
  const addInput = (name: string, declared: readonly number[] | undefined, where: string) => {
    if (blobs.has(name)) throw TsgeError.of('TSGE-E3209', { input: name, reason: 'it is declared twice' }, { input: name });
    const override = options.inputShapes?.get(name);
    usedInputs.add(name);
    const shape = override ? concreteShape(override, name) : declared;
    if (!shape) {
      throw TsgeError.of(
        'TSGE-E3209',
        { input: name, reason: `${where} gives no shape; pass one with --input_shape (inputShapes)` },
        { input: name },
      );
    }
    if (!shape.every((d) => Number.isSafeInteger(d) && d >= 0))
      throw TsgeError.of(
        'TSGE-E3209',
        { input: name, reason: `${where} gives shape [${shape.join(', ')}]: every dim must be a non-negative integer` },
        { input: name },
      );
    const value = builder.input(name, 'float32', shape);
    setBlob(name, { value, shape });
  };

  for (const input of net.inputs) addInput(input.name, input.shape, 'the net-level input');

  for (const layer of net.layers) {
    const location = { node: layer.name, opType: layer.type, ...(options.file ? { file: options.file } : {}) };
    if (layer.type === 'Input' || DATA_LAYERS.has(layer.type)) {
      const shapes = layer.params.input_param?.shape ?? [];
      layer.tops.forEach((top, i) => {
        const shape = shapes.length === 1 ? shapes[0] : shapes[i];
        addInput(top, shape ? (shape.dim ?? []).map(Number) : undefined, `${layer.type} layer ${layer.name}`);
      });
      continue;
    }
    if (TRAINING_LAYERS.has(layer.type)) {
      throw TsgeError.of('TSGE-E3203', { layer: layer.name, type: `${layer.type} (a training layer: use the deploy prototxt)` }, location);
    }
    const converter = LAYER_CONVERTERS.get(layer.type);
    if (!converter) throw TsgeError.of('TSGE-E3203', { layer: layer.name, type: layer.type || '(none)' }, location);
    const inputs = layer.bottoms.map((bottom) => {
      const ref = blobs.get(bottom);
      if (!ref) throw TsgeError.of('TSGE-E3204', { layer: layer.name, blob: bottom }, location);
      return ref;
    });
    for (const bottom of layer.bottoms) {
      const at = available.indexOf(bottom);
      if (at >= 0) available.splice(at, 1);
    }
    const tops = converter(new LayerContext(context, layer, inputs));
    if (tops.length !== layer.tops.length) {
      throw TsgeError.of(
        'TSGE-E3205',
        { layer: layer.name, type: layer.type, reason: `has ${layer.tops.length} tops; this layer gives ${tops.length}` },
        location,
      );
    }
    layer.tops.forEach((top, i) => {
      const ref = tops[i];
      if (ref) setBlob(top, ref);
    });
    produced.set(
      layer.name,
      tops.filter((t): t is BlobRef => t !== undefined),
    );
  }

  for (const name of options.inputShapes?.keys() ?? []) {
    if (!usedInputs.has(name))
      diagnostics.push(diagnostic('TSGE-E3209', { input: name, reason: 'the network has no such input' }, { input: name }, 'warning'));
  }
  const outputs = options.outputNodes?.length
    ? selectOutputs(options.outputNodes, blobs, produced)
    : available.map((name) => ({ name, ref: blobs.get(name) as BlobRef }));
  if (outputs.length === 0)
    throw TsgeError.of('TSGE-E3202', { what: 'network', reason: 'it has no outputs' }, options.file ? { file: options.file } : undefined);
  const emitted = new Set<string>();
  for (const { name, ref } of outputs) {
    // a graph input or an already emitted value returned again needs its own node to carry the name
    const key = `${ref.value.node.name}:${ref.value.index}`;
    const value =
      emitted.has(key) || ref.value.node.opDesc.type === 'Data'
        ? builder.op('Identity', [ref.value], {
            name: `${name}/output`,
            outputDescs: [{ dtype: 'float32', shape: [...ref.shape], format: 'ND', originShape: [...ref.shape], originFormat: 'ND' }],
          })
        : ref.value;
    emitted.add(key);
    builder.output(value, name);
  }
  const graph = builder.build();
  graph.attrs.set('_opset_imports', attr.namedAttrs({ name: 'opset_imports', attrs: new Map([['ai.onnx', attr.int(CAFFE_ONNX_OPSET)]]) }));
  return { graph, missingWeights: context.missingWeights };
}

/** `--out_nodes`: a blob name, or a layer name with an optional `:index` of its tops. */
function selectOutputs(
  names: readonly string[],
  blobs: ReadonlyMap<string, BlobRef>,
  produced: ReadonlyMap<string, readonly BlobRef[]>,
): { name: string; ref: BlobRef }[] {
  return names.map((entry) => {
    const match = /^(.*):(\d+)$/.exec(entry);
    const layerName = match ? (match[1] as string) : entry;
    const index = match ? Number(match[2]) : 0;
    const fromLayer = produced.get(layerName)?.[index];
    const ref = fromLayer ?? (match ? undefined : blobs.get(entry));
    if (!ref)
      throw TsgeError.of(
        'TSGE-E7002',
        { option: 'out_nodes', value: entry, reason: 'no layer or blob has this name' },
        { option: 'out_nodes' },
      );
    return { name: fromLayer ? `${layerName}${match ? `:${index}` : ''}` : entry, ref };
  });
}

export type { Layer };

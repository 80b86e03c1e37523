import { type Diagnostic, TsgeError } from '@tsge/metadef';
import { caffe } from '../generated/caffe.js';
import schema from '../generated/caffe-schema.js';
import { parseTextFormat } from '../text-format/parse-text.js';
import { type BlobValues, blobValues } from './blobs.js';
import { V1_TYPE_NAMES } from './v1-types.js';

/** One layer after V1 upgrade and phase filtering: the V2 message plus its weight blobs. */
export interface Layer {
  readonly name: string;
  readonly type: string;
  readonly bottoms: readonly string[];
  readonly tops: readonly string[];
  /** The V2 layer message; parameters are read from here (`convolution_param`, ...). */
  readonly params: caffe.ILayerParameter;
  /** Blobs from the caffemodel (or the model file itself), undefined when none were given. */
  blobs: BlobValues[] | undefined;
}

export interface Net {
  readonly name: string;
  /** Inputs declared at net level (`input` + `input_shape` / `input_dim`). */
  readonly inputs: readonly { readonly name: string; readonly shape: readonly number[] | undefined }[];
  readonly layers: readonly Layer[];
}

const NET_TYPE = schema.lookupType('caffe.NetParameter');

/** Reads a prototxt; syntax errors throw TSGE-E3201, unknown fields are warnings. */
export function readPrototxt(bytes: Uint8Array, diagnostics: Diagnostic[], file?: string): caffe.INetParameter {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  return parseTextFormat(text, NET_TYPE, diagnostics, file) as caffe.INetParameter;
}

/** Decodes a binary NetParameter (.caffemodel); anything malformed throws TSGE-E3202. */
export function readCaffemodel(bytes: Uint8Array, file?: string): caffe.INetParameter {
  try {
    return caffe.NetParameter.decode(bytes);
  } catch (error) {
    throw TsgeError.of(
      'TSGE-E3202',
      { what: 'caffemodel', reason: error instanceof Error ? error.message : String(error) },
      file ? { file } : undefined,
      error,
    );
  }
}

/** The network state deploy nets are run in (Caffe's default NetState: TEST, level 0, no stages). */
interface State {
  readonly phase: number;
  readonly level: number;
  readonly stages: ReadonlySet<string>;
}

function ruleMatches(rule: caffe.INetStateRule, state: State): boolean {
  if (Object.hasOwn(rule, 'phase') && rule.phase !== state.phase) return false;
  if (Object.hasOwn(rule, 'min_level') && state.level < (rule.min_level ?? 0)) return false;
  if (Object.hasOwn(rule, 'max_level') && state.level > (rule.max_level ?? 0)) return false;
  for (const s of rule.stage ?? []) if (!state.stages.has(s)) return false;
  for (const s of rule.not_stage ?? []) if (state.stages.has(s)) return false;
  return true;
}

/** Caffe's StateMeetsRule: include rules need one match, exclude rules need none. */
function included(include: readonly caffe.INetStateRule[], exclude: readonly caffe.INetStateRule[], state: State): boolean {
  if (include.length > 0) return include.some((r) => ruleMatches(r, state));
  return !exclude.some((r) => ruleMatches(r, state));
}

/** A V1 `layers` entry as a V2 `layer`: the enum type becomes its name, parameters carry over. */
function upgradeV1(v1: caffe.IV1LayerParameter): caffe.ILayerParameter {
  const typeNumber = v1.type ?? 0;
  const type = V1_TYPE_NAMES[typeNumber] ?? `V1 type ${typeNumber}`;
  const layer: caffe.ILayerParameter = {
    name: v1.name ?? '',
    type,
    bottom: [...(v1.bottom ?? [])],
    top: [...(v1.top ?? [])],
    include: [...(v1.include ?? [])],
    exclude: [...(v1.exclude ?? [])],
  };
  if (v1.blobs?.length) layer.blobs = [...v1.blobs];
  const copied = [
    'argmax_param',
    'concat_param',
    'convolution_param',
    'data_param',
    'dropout_param',
    'eltwise_param',
    'exp_param',
    'inner_product_param',
    'lrn_param',
    'mvn_param',
    'pooling_param',
    'power_param',
    'relu_param',
    'softmax_param',
    'slice_param',
    'threshold_param',
    'transform_param',
  ] as const;
  const target = layer as Record<string, unknown>;
  const source = v1 as Record<string, unknown>;
  for (const key of copied) if (Object.hasOwn(v1, key) && source[key] != null) target[key] = source[key];
  return layer;
}

/** All layers of a NetParameter as V2 messages (V1 `layers` upgraded), in file order. */
export function layersOf(net: caffe.INetParameter): caffe.ILayerParameter[] {
  const v2 = net.layer ?? [];
  const v1 = net.layers ?? [];
  if (v2.length > 0 && v1.length > 0) {
    throw TsgeError.of('TSGE-E3202', { what: 'network', reason: 'it mixes V1 "layers" and V2 "layer" entries' });
  }
  return v2.length > 0 ? [...v2] : v1.map(upgradeV1);
}

/**
 * The deploy network: net-level inputs, and the layers that Caffe instantiates in the TEST phase
 * (TRAIN-only layers and those whose include/exclude rules say so are dropped).
 */
export function buildNet(structure: caffe.INetParameter): Net {
  const state: State = {
    phase: structure.state?.phase ?? caffe.Phase.TEST,
    level: structure.state?.level ?? 0,
    stages: new Set(structure.state?.stage ?? []),
  };
  const layers: Layer[] = [];
  for (const layer of layersOf(structure)) {
    if (!included(layer.include ?? [], layer.exclude ?? [], state)) continue;
    // `phase` on a layer records the net it was saved from (a caffemodel's is TRAIN): not a rule
    layers.push({
      name: layer.name ?? '',
      type: layer.type ?? '',
      bottoms: [...(layer.bottom ?? [])],
      tops: [...(layer.top ?? [])],
      params: layer,
      blobs: layer.blobs?.length ? layer.blobs.map((b, i) => blobValues(b, layer.name ?? '', i)) : undefined,
    });
  }
  return { name: structure.name ?? 'caffe', inputs: netInputs(structure), layers };
}

function netInputs(net: caffe.INetParameter): { name: string; shape: number[] | undefined }[] {
  const names = net.input ?? [];
  const shapes = net.input_shape ?? [];
  const dims = (net.input_dim ?? []).map(Number);
  return names.map((name, i) => {
    const shape = shapes[i];
    if (shape) return { name, shape: (shape.dim ?? []).map(Number) };
    if (dims.length >= 4 * (i + 1)) return { name, shape: dims.slice(4 * i, 4 * i + 4) };
    return { name, shape: undefined };
  });
}

/** Puts each caffemodel layer's blobs on the prototxt layer of the same name. */
export function attachWeights(net: Net, byName: ReadonlyMap<string, BlobValues[]>): string[] {
  const missing: string[] = [];
  for (const layer of net.layers) {
    const blobs = byName.get(layer.name);
    if (blobs) layer.blobs = blobs;
    else if (!layer.blobs) missing.push(layer.name);
  }
  return missing;
}

import { type HostTensor, type ParseOptions, type ParseResult, type Value, attr, toNumberArray } from '@tsge/metadef';
import type { ConvertContext } from '../import/context.js';
import { importNodes } from '../import/importer.js';
import type { TensorRef, TfNode } from '../import/tf-node.js';
import type { IAttrValue } from '../internal/proto.js';
import { TfProblem } from '../internal/problem.js';
import type { ConverterTable } from '../ops/registry.js';

// A Keras topology (TensorFlow.js layers model) is rewritten into TF nodes (the ops TF's own Keras
// layers lower to), which the GraphDef importer then maps into the canonical op set: one mapping
// of Conv2D/pools/batch norm/NHWC layout serves both. Recurrent layers become one synthetic node
// each, converted here to the canonical RNN/GRU/LSTM ops.

const FORMAT = 'TensorFlow.js layers model';
const encoder = new TextEncoder();
const problem = (reason: string) => new TfProblem('TSGE-E3112', { reason });

const A = {
  i: (value: number): IAttrValue => ({ i: value }),
  f: (value: number): IAttrValue => ({ f: value }),
  b: (value: boolean): IAttrValue => ({ b: value }),
  s: (value: string): IAttrValue => ({ s: encoder.encode(value) }),
  ints: (value: readonly number[]): IAttrValue => ({ list: { i: [...value] } }),
  strings: (value: readonly string[]): IAttrValue => ({ list: { s: value.map((v) => encoder.encode(v)) } }),
  float: (): IAttrValue => ({ type: 1 }),
  int32: (): IAttrValue => ({ type: 3 }),
};

type LayerConfig = Record<string, unknown>;
interface LayerJson {
  readonly class_name: string;
  readonly config: LayerConfig;
  readonly inbound_nodes?: unknown;
  readonly name?: string;
}

const RNN_OP = '_TsgeKerasRecurrent';

class Emitter {
  readonly nodes: TfNode[] = [];
  private readonly used = new Set<string>();
  readonly inputs: string[] = [];

  constructor(private readonly weights: ReadonlyMap<string, HostTensor>) {}

  unique(base: string): string {
    let name = base;
    for (let i = 1; this.used.has(name); i++) name = `${base}_${i}`;
    this.used.add(name);
    return name;
  }

  node(base: string, op: string, inputs: readonly TensorRef[], attrs: Record<string, IAttrValue> = {}): TensorRef {
    const name = this.unique(base);
    this.nodes.push({ name, op, inputs: [...inputs], control: [], attr: attrs });
    return { node: name, index: 0 };
  }

  /** A Const node for a small constant written here (shapes, axes, activation parameters). */
  constant(base: string, values: readonly number[], dims: readonly number[], int = false): TensorRef {
    const tensor = int
      ? { dtype: 3, tensorShape: { dim: dims.map((size) => ({ size })) }, intVal: [...values] }
      : { dtype: 1, tensorShape: { dim: dims.map((size) => ({ size })) }, floatVal: [...values] };
    return this.node(base, 'Const', [], { value: { tensor }, dtype: int ? A.int32() : A.float() });
  }

  /** The weight `name` of `layer` as a Const node (tfjs names weights `layer/weight`, nested models prefix them). */
  weight(layer: string, name: string, scopes: readonly string[]): TensorRef {
    const candidates = [...scopes.map((_, i) => `${scopes.slice(i).join('/')}/${layer}/${name}`), `${layer}/${name}`];
    let key = candidates.find((c) => this.weights.has(c));
    if (!key) for (const k of this.weights.keys()) if (k.endsWith(`/${layer}/${name}`)) key = k;
    if (!key) throw problem(`layer ${layer} has no weight ${name} in the weights manifest`);
    if (this.used.has(key)) return { node: key, index: 0 };
    this.used.add(key);
    this.nodes.push({ name: key, op: 'Const', inputs: [], control: [], attr: {} });
    return { node: key, index: 0 };
  }

  hasWeight(layer: string, name: string): boolean {
    for (const k of this.weights.keys()) if (k === `${layer}/${name}` || k.endsWith(`/${layer}/${name}`)) return true;
    return false;
  }
}

function num(config: LayerConfig, key: string, fallback?: number): number {
  const v = config[key];
  if (typeof v === 'number') return v;
  if (fallback !== undefined) return fallback;
  throw problem(`layer config ${key} is missing`);
}
function pair(config: LayerConfig, key: string, fallback: number): [number, number] {
  const v = config[key];
  if (typeof v === 'number') return [v, v];
  if (Array.isArray(v) && v.length === 1 && typeof v[0] === 'number') return [v[0], v[0]];
  if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'number' && typeof v[1] === 'number') return [v[0], v[1]];
  if (v === undefined || v === null) return [fallback, fallback];
  throw problem(`layer config ${key} is not one or two numbers`);
}
function str(config: LayerConfig, key: string, fallback: string): string {
  const v = config[key];
  return typeof v === 'string' ? v : fallback;
}
function channelsLast(config: LayerConfig): void {
  const format = str(config, 'data_format', 'channels_last');
  if (format !== 'channels_last') throw problem(`data_format ${format} is not supported`);
}

/** A Keras activation by name, applied to `x`. */
function activation(e: Emitter, base: string, name: string, x: TensorRef): TensorRef {
  const f = { T: A.float() };
  switch (name.replace(/[_]/g, '').toLowerCase()) {
    case 'linear':
    case '':
      return x;
    case 'relu':
      return e.node(`${base}/Relu`, 'Relu', [x], f);
    case 'relu6':
      return e.node(`${base}/Relu6`, 'Relu6', [x], f);
    case 'sigmoid':
      return e.node(`${base}/Sigmoid`, 'Sigmoid', [x], f);
    case 'tanh':
      return e.node(`${base}/Tanh`, 'Tanh', [x], f);
    case 'softmax':
      return e.node(`${base}/Softmax`, 'Softmax', [x], f);
    case 'elu':
      return e.node(`${base}/Elu`, 'Elu', [x], f);
    case 'selu':
      return e.node(`${base}/Selu`, 'Selu', [x], f);
    case 'softplus':
      return e.node(`${base}/Softplus`, 'Softplus', [x], f);
    case 'softsign':
      return e.node(`${base}/Softsign`, 'Softsign', [x], f);
    case 'exponential':
      return e.node(`${base}/Exp`, 'Exp', [x], f);
    case 'swish':
      return e.node(`${base}/mul`, 'Mul', [x, e.node(`${base}/Sigmoid`, 'Sigmoid', [x], f)], f);
    case 'hardsigmoid': {
      // clip(0.2 x + 0.5, 0, 1)
      const y = e.node(
        `${base}/add`,
        'AddV2',
        [e.node(`${base}/mul`, 'Mul', [x, e.constant(`${base}/a`, [0.2], [])], f), e.constant(`${base}/b`, [0.5], [])],
        f,
      );
      return e.node(`${base}/clip`, 'ClipByValue', [y, e.constant(`${base}/lo`, [0], []), e.constant(`${base}/hi`, [1], [])], f);
    }
    default:
      throw problem(`activation ${name} is not supported`);
  }
}

/** [batch, ...dims] as a Reshape target: the batch dim read from x at run time. */
function reshapeKeepBatch(e: Emitter, base: string, x: TensorRef, dims: readonly number[]): TensorRef {
  const shape = e.node(`${base}/Shape`, 'Shape', [x], { out_type: A.int32() });
  const batch = e.node(`${base}/batch`, 'StridedSlice', [
    shape,
    e.constant(`${base}/b0`, [0], [1], true),
    e.constant(`${base}/b1`, [1], [1], true),
    e.constant(`${base}/s`, [1], [1], true),
  ]);
  const target = e.node(`${base}/target`, 'ConcatV2', [
    batch,
    e.constant(`${base}/dims`, dims, [dims.length], true),
    e.constant(`${base}/axis`, [0], [], true),
  ]);
  return e.node(`${base}/Reshape`, 'Reshape', [x, target], { T: A.float() });
}

interface Scope {
  readonly tensors: Map<string, TensorRef[]>;
  readonly scopes: readonly string[];
}

function convLike(
  e: Emitter,
  layer: string,
  config: LayerConfig,
  x: TensorRef,
  scopes: readonly string[],
  kind: 'conv' | 'depthwise' | 'separable',
): TensorRef {
  channelsLast(config);
  const [sh, sw] = pair(config, 'strides', 1);
  const [dh, dw] = pair(config, 'dilation_rate', 1);
  const padding = str(config, 'padding', 'valid').toUpperCase();
  if (padding !== 'SAME' && padding !== 'VALID') throw problem(`padding ${padding} is not supported`);
  const attrs = {
    T: A.float(),
    strides: A.ints([1, sh, sw, 1]),
    dilations: A.ints([1, dh, dw, 1]),
    padding: A.s(padding),
    data_format: A.s('NHWC'),
  };
  let y: TensorRef;
  if (kind === 'conv') y = e.node(`${layer}/Conv2D`, 'Conv2D', [x, e.weight(layer, 'kernel', scopes)], attrs);
  else {
    y = e.node(`${layer}/depthwise`, 'DepthwiseConv2dNative', [x, e.weight(layer, 'depthwise_kernel', scopes)], attrs);
    if (kind === 'separable')
      y = e.node(`${layer}/pointwise`, 'Conv2D', [y, e.weight(layer, 'pointwise_kernel', scopes)], {
        ...attrs,
        strides: A.ints([1, 1, 1, 1]),
        dilations: A.ints([1, 1, 1, 1]),
        padding: A.s('VALID'),
      });
  }
  if (config.use_bias !== false)
    y = e.node(`${layer}/BiasAdd`, 'BiasAdd', [y, e.weight(layer, 'bias', scopes)], { T: A.float(), data_format: A.s('NHWC') });
  return activation(e, layer, str(config, 'activation', 'linear'), y);
}

/** Rank-3 [batch, steps, channels] through a 2-D op on [batch, 1, steps, channels]. */
function as1d(e: Emitter, base: string, x: TensorRef, inner: (x4: TensorRef) => TensorRef): TensorRef {
  const x4 = e.node(`${base}/ExpandDims`, 'ExpandDims', [x, e.constant(`${base}/axis1`, [1], [], true)]);
  return e.node(`${base}/Squeeze`, 'Squeeze', [inner(x4)], { squeeze_dims: A.ints([1]) });
}

function recurrent(
  e: Emitter,
  layer: string,
  className: string,
  config: LayerConfig,
  x: TensorRef,
  scopes: readonly string[],
  direction: string,
  merge?: string,
): TensorRef {
  const cell = className === 'SimpleRNN' ? 'RNN' : className === 'GRU' ? 'GRU' : 'LSTM';
  if (config.stateful === true) throw problem(`${className} ${layer}: stateful recurrent layers are not supported`);
  if (config.reset_after === true) throw problem(`GRU ${layer}: reset_after is not supported`);
  const weightsOf = (name: string) => {
    const inputs = [e.weight(name, 'kernel', scopes), e.weight(name, 'recurrent_kernel', scopes)];
    if (config.use_bias !== false) inputs.push(e.weight(name, 'bias', scopes));
    return inputs;
  };
  const inputs = [x];
  const names = direction === 'bidirectional' ? [`forward_${layer}`, `backward_${layer}`] : [layer];
  for (const n of names) inputs.push(...weightsOf(e.hasWeight(n, 'kernel') ? n : layer));
  return e.node(`${layer}/${cell}`, RNN_OP, inputs, {
    cell: A.s(cell),
    units: A.i(num(config, 'units')),
    activation: A.s(str(config, 'activation', 'tanh')),
    recurrent_activation: A.s(str(config, 'recurrent_activation', className === 'SimpleRNN' ? 'tanh' : 'hard_sigmoid')),
    return_sequences: A.b(config.return_sequences === true),
    direction: A.s(direction),
    merge: A.s(merge ?? 'concat'),
    use_bias: A.b(config.use_bias !== false),
  });
}

function applyLayer(
  e: Emitter,
  layer: LayerJson,
  inputs: TensorRef[],
  scope: Scope,
  models: (l: LayerJson, inputs: TensorRef[], scopes: readonly string[]) => TensorRef[],
): TensorRef[] {
  const config = layer.config ?? {};
  const name = String(config.name ?? layer.name ?? layer.class_name);
  const x = inputs[0] as TensorRef;
  const f = { T: A.float() };
  const scopes = scope.scopes;
  switch (layer.class_name) {
    case 'Sequential':
    case 'Model':
    case 'Functional':
      return models(layer, inputs, [...scopes, name]);
    case 'Dense': {
      let y = e.node(`${name}/MatMul`, 'BatchMatMulV2', [x, e.weight(name, 'kernel', scopes)], f);
      if (config.use_bias !== false) y = e.node(`${name}/BiasAdd`, 'BiasAdd', [y, e.weight(name, 'bias', scopes)], f);
      return [activation(e, name, str(config, 'activation', 'linear'), y)];
    }
    case 'Conv2D':
      return [convLike(e, name, config, x, scopes, 'conv')];
    case 'DepthwiseConv2D':
      return [convLike(e, name, config, x, scopes, 'depthwise')];
    case 'SeparableConv2D':
      return [convLike(e, name, config, x, scopes, 'separable')];
    case 'Conv1D':
      return [
        as1d(e, name, x, (x4) =>
          convLike(
            e,
            name,
            { ...config, strides: [1, pair(config, 'strides', 1)[0]], dilation_rate: [1, pair(config, 'dilation_rate', 1)[0]] },
            x4,
            scopes,
            'conv',
          ),
        ),
      ];
    case 'BatchNormalization': {
      const axis = num(config, 'axis', -1);
      if (axis !== -1 && !(Array.isArray(config.axis) && config.axis.length === 1 && config.axis[0] === -1)) {
        // only the channels-last axis: Keras' default for channels_last data
        if (axis !== -1) throw problem(`BatchNormalization ${name}: axis ${axis} is not supported (only -1)`);
      }
      const gamma = config.scale === false ? undefined : e.weight(name, 'gamma', scopes);
      const beta = config.center === false ? undefined : e.weight(name, 'beta', scopes);
      const mean = e.weight(name, 'moving_mean', scopes);
      const variance = e.weight(name, 'moving_variance', scopes);
      const ones = gamma ?? e.node(`${name}/ones`, 'OnesLike', [mean], f);
      const zeros = beta ?? e.node(`${name}/zeros`, 'ZerosLike', [mean], f);
      return [
        e.node(`${name}/FusedBatchNormV3`, 'FusedBatchNormV3', [x, ones, zeros, mean, variance], {
          T: A.float(),
          epsilon: A.f(num(config, 'epsilon', 1e-3)),
          data_format: A.s('NHWC'),
          is_training: A.b(false),
        }),
      ];
    }
    case 'MaxPooling2D':
    case 'AveragePooling2D':
    case 'MaxPool2D':
    case 'AvgPool2D': {
      channelsLast(config);
      const [ph, pw] = pair(config, 'pool_size', 2);
      const strides = config.strides === null || config.strides === undefined ? [ph, pw] : pair(config, 'strides', 1);
      const op = layer.class_name.startsWith('Max') ? 'MaxPool' : 'AvgPool';
      return [
        e.node(`${name}/${op}`, op, [x], {
          T: A.float(),
          ksize: A.ints([1, ph, pw, 1]),
          strides: A.ints([1, strides[0] as number, strides[1] as number, 1]),
          padding: A.s(str(config, 'padding', 'valid').toUpperCase()),
          data_format: A.s('NHWC'),
        }),
      ];
    }
    case 'MaxPooling1D':
    case 'AveragePooling1D': {
      const [p] = pair(config, 'pool_size', 2);
      const s = config.strides === null || config.strides === undefined ? p : pair(config, 'strides', 1)[0];
      const op = layer.class_name.startsWith('Max') ? 'MaxPool' : 'AvgPool';
      return [
        as1d(e, name, x, (x4) =>
          e.node(`${name}/${op}`, op, [x4], {
            T: A.float(),
            ksize: A.ints([1, 1, p, 1]),
            strides: A.ints([1, 1, s, 1]),
            padding: A.s(str(config, 'padding', 'valid').toUpperCase()),
            data_format: A.s('NHWC'),
          }),
        ),
      ];
    }
    case 'GlobalAveragePooling2D':
    case 'GlobalMaxPooling2D':
    case 'GlobalAveragePooling1D':
    case 'GlobalMaxPooling1D': {
      const axes = layer.class_name.endsWith('2D') ? [1, 2] : [1];
      const op = layer.class_name.includes('Max') ? 'Max' : 'Mean';
      return [
        e.node(`${name}/${op}`, op, [x, e.constant(`${name}/axes`, axes, [axes.length], true)], {
          T: A.float(),
          keep_dims: A.b(config.keepdims === true),
        }),
      ];
    }
    case 'Activation':
      return [activation(e, name, str(config, 'activation', 'linear'), x)];
    case 'ReLU': {
      const max = config.max_value;
      const slope = num(config, 'negative_slope', 0);
      if (num(config, 'threshold', 0) !== 0) throw problem(`ReLU ${name}: threshold is not supported`);
      let y = slope
        ? e.node(`${name}/LeakyRelu`, 'LeakyRelu', [x], { T: A.float(), alpha: A.f(slope) })
        : e.node(`${name}/Relu`, 'Relu', [x], f);
      if (typeof max === 'number') y = e.node(`${name}/Minimum`, 'Minimum', [y, e.constant(`${name}/max`, [max], [])], f);
      return [y];
    }
    case 'LeakyReLU':
      return [e.node(`${name}/LeakyRelu`, 'LeakyRelu', [x], { T: A.float(), alpha: A.f(num(config, 'alpha', 0.3)) })];
    case 'ELU': {
      const alpha = num(config, 'alpha', 1);
      if (alpha !== 1) throw problem(`ELU ${name}: alpha other than 1 is not supported`);
      return [e.node(`${name}/Elu`, 'Elu', [x], f)];
    }
    case 'PReLU':
      return [e.node(`${name}/Prelu`, 'Prelu', [x, e.weight(name, 'alpha', scopes)], f)];
    case 'Softmax': {
      const axis = num(config, 'axis', -1);
      if (axis !== -1) throw problem(`Softmax ${name}: axis ${axis} is not supported`);
      return [e.node(`${name}/Softmax`, 'Softmax', [x], f)];
    }
    case 'ThresholdedReLU': {
      const theta = e.constant(`${name}/theta`, [num(config, 'theta', 1)], []);
      const mask = e.node(`${name}/Cast`, 'Cast', [e.node(`${name}/Greater`, 'Greater', [x, theta], f)], { DstT: A.float() });
      return [e.node(`${name}/mul`, 'Mul', [x, mask], f)];
    }
    case 'Add':
      return [e.node(`${name}/AddN`, 'AddN', inputs, f)];
    case 'Subtract':
      return [e.node(`${name}/Sub`, 'Sub', [x, inputs[1] as TensorRef], f)];
    case 'Multiply':
      return [inputs.slice(1).reduce((a, b, i) => e.node(`${name}/mul${i}`, 'Mul', [a, b], f), x)];
    case 'Maximum':
      return [inputs.slice(1).reduce((a, b, i) => e.node(`${name}/max${i}`, 'Maximum', [a, b], f), x)];
    case 'Minimum':
      return [inputs.slice(1).reduce((a, b, i) => e.node(`${name}/min${i}`, 'Minimum', [a, b], f), x)];
    case 'Average': {
      const sum = e.node(`${name}/AddN`, 'AddN', inputs, f);
      return [e.node(`${name}/div`, 'RealDiv', [sum, e.constant(`${name}/n`, [inputs.length], [])], f)];
    }
    case 'Concatenate':
      return [e.node(`${name}/concat`, 'ConcatV2', [...inputs, e.constant(`${name}/axis`, [num(config, 'axis', -1)], [], true)], f)];
    case 'Flatten':
      return [reshapeKeepBatch(e, name, x, [-1])];
    case 'Reshape': {
      const target = config.target_shape;
      if (!Array.isArray(target) || !target.every((d) => typeof d === 'number'))
        throw problem(`Reshape ${name}: target_shape is not a list of numbers`);
      return [reshapeKeepBatch(e, name, x, target as number[])];
    }
    case 'Permute': {
      const dims = config.dims;
      if (!Array.isArray(dims)) throw problem(`Permute ${name}: dims is not a list`);
      const perm = [0, ...(dims as number[])];
      return [e.node(`${name}/transpose`, 'Transpose', [x, e.constant(`${name}/perm`, perm, [perm.length], true)], f)];
    }
    case 'Dropout':
    case 'SpatialDropout1D':
    case 'SpatialDropout2D':
    case 'GaussianNoise':
    case 'GaussianDropout':
    case 'AlphaDropout':
    case 'InputLayer':
      return [x];
    case 'ZeroPadding2D': {
      channelsLast(config);
      const p = config.padding;
      let pads: number[];
      if (typeof p === 'number') pads = [p, p, p, p];
      else if (Array.isArray(p) && p.length === 2 && typeof p[0] === 'number') pads = [p[0], p[0], p[1] as number, p[1] as number];
      else if (Array.isArray(p) && p.length === 2 && Array.isArray(p[0])) pads = [...(p[0] as number[]), ...(p[1] as number[])];
      else throw problem(`ZeroPadding2D ${name}: padding is malformed`);
      return [e.node(`${name}/Pad`, 'Pad', [x, e.constant(`${name}/paddings`, [0, 0, ...pads, 0, 0], [4, 2], true)], f)];
    }
    case 'Cropping2D': {
      channelsLast(config);
      const c = config.cropping;
      let crops: number[];
      if (typeof c === 'number') crops = [c, c, c, c];
      else if (Array.isArray(c) && c.length === 2 && typeof c[0] === 'number') crops = [c[0], c[0], c[1] as number, c[1] as number];
      else if (Array.isArray(c) && c.length === 2 && Array.isArray(c[0])) crops = [...(c[0] as number[]), ...(c[1] as number[])];
      else throw problem(`Cropping2D ${name}: cropping is malformed`);
      const [t, b, l, r] = crops as [number, number, number, number];
      // end 0 with the end mask bit means "to the edge"
      const endMask = 0b1001 | (b === 0 ? 0b0010 : 0) | (r === 0 ? 0b0100 : 0);
      return [
        e.node(
          `${name}/StridedSlice`,
          'StridedSlice',
          [
            x,
            e.constant(`${name}/begin`, [0, t, l, 0], [4], true),
            e.constant(`${name}/end`, [0, -b, -r, 0], [4], true),
            e.constant(`${name}/strides`, [1, 1, 1, 1], [4], true),
          ],
          {
            begin_mask: A.i(0b1001),
            end_mask: A.i(endMask),
          },
        ),
      ];
    }
    case 'UpSampling2D': {
      channelsLast(config);
      const [sh, sw] = pair(config, 'size', 2);
      const shape = e.node(`${name}/Shape`, 'Shape', [x], { out_type: A.int32() });
      const hw = e.node(`${name}/hw`, 'StridedSlice', [
        shape,
        e.constant(`${name}/b`, [1], [1], true),
        e.constant(`${name}/e`, [3], [1], true),
        e.constant(`${name}/s`, [1], [1], true),
      ]);
      const size = e.node(`${name}/size`, 'Mul', [hw, e.constant(`${name}/factor`, [sh, sw], [2], true)], { T: A.int32() });
      const op = str(config, 'interpolation', 'nearest') === 'bilinear' ? 'ResizeBilinear' : 'ResizeNearestNeighbor';
      return [
        e.node(`${name}/${op}`, op, [x, size], {
          T: A.float(),
          align_corners: A.b(false),
          half_pixel_centers: A.b(op === 'ResizeBilinear'),
        }),
      ];
    }
    case 'Embedding': {
      const ids = e.node(`${name}/Cast`, 'Cast', [x], { DstT: A.int32() });
      return [
        e.node(`${name}/GatherV2`, 'GatherV2', [e.weight(name, 'embeddings', scopes), ids, e.constant(`${name}/axis`, [0], [], true)], {
          batch_dims: A.i(0),
        }),
      ];
    }
    case 'SimpleRNN':
    case 'GRU':
    case 'LSTM':
      if (config.go_backwards === true) return [recurrent(e, name, layer.class_name, config, x, scopes, 'reverse')];
      return [recurrent(e, name, layer.class_name, config, x, scopes, 'forward')];
    case 'Bidirectional': {
      const inner = config.layer as LayerJson | undefined;
      if (!inner || !['SimpleRNN', 'GRU', 'LSTM'].includes(inner.class_name))
        throw problem(`Bidirectional ${name}: the wrapped layer is not a recurrent layer`);
      const merge = str(config, 'merge_mode', 'concat');
      return [recurrent(e, name, inner.class_name, { ...inner.config }, x, scopes, 'bidirectional', merge)];
    }
    case 'TimeDistributed': {
      const inner = config.layer as LayerJson | undefined;
      // a Dense applies to the last axis, so it maps every time step as it stands
      if (inner?.class_name !== 'Dense') throw problem(`TimeDistributed ${name}: only a wrapped Dense layer is supported`);
      const innerName = String(inner.config.name ?? name);
      const hasOwn = e.hasWeight(innerName, 'kernel');
      return applyLayer(e, { ...inner, config: { ...inner.config, name: hasOwn ? innerName : name } }, inputs, scope, models);
    }
    default:
      throw problem(`layer class ${layer.class_name} (${name}) is not supported`);
  }
}

function inputShape(config: LayerConfig): number[] | undefined {
  const shape = config.batch_input_shape ?? config.batch_shape;
  if (Array.isArray(shape)) return shape.map((d) => (typeof d === 'number' ? d : -1));
  const input = config.input_shape;
  if (Array.isArray(input)) return [-1, ...input.map((d) => (typeof d === 'number' ? d : -1))];
  return undefined;
}

/** Inbound references of a functional layer's first call: `[[name, nodeIndex, tensorIndex, kwargs], ...]`. */
function inboundOf(layer: LayerJson): { layer: string; node: number; tensor: number }[] {
  const inbound = layer.inbound_nodes;
  if (!Array.isArray(inbound) || inbound.length === 0) return [];
  if (inbound.length > 1) throw problem(`layer ${String(layer.config?.name)} is called more than once (shared layers are not supported)`);
  const first = inbound[0];
  if (!Array.isArray(first)) throw problem(`layer ${String(layer.config?.name)} has malformed inbound_nodes`);
  return first.map((entry) => {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string')
      throw problem(`layer ${String(layer.config?.name)} has a malformed inbound entry`);
    return { layer: entry[0], node: Number(entry[1] ?? 0), tensor: Number(entry[2] ?? 0) };
  });
}

/** Converts a Keras model config (Sequential or functional) applied to `inputs`; returns its outputs. */
function convertModel(
  e: Emitter,
  model: LayerJson,
  inputs: TensorRef[] | undefined,
  scopes: readonly string[],
  depth: number,
): TensorRef[] {
  if (depth > 16) throw problem('models nested deeper than 16');
  const config = model.config as { layers?: LayerJson[]; input_layers?: unknown[]; output_layers?: unknown[]; name?: string } | LayerJson[];
  const layers = (Array.isArray(config) ? config : config.layers) ?? [];
  if (!Array.isArray(layers)) throw problem('model config has no list of layers');
  const nested = (l: LayerJson, ins: TensorRef[], s: readonly string[]) => convertModel(e, l, ins, s, depth + 1);
  const scope: Scope = { tensors: new Map(), scopes };
  const newInput = (layer: LayerJson): TensorRef => {
    const shape = inputShape(layer.config ?? {});
    if (!shape) throw problem(`input layer ${String(layer.config?.name)} has no batch_input_shape`);
    const dtype = str(layer.config ?? {}, 'dtype', 'float32');
    const name = String(layer.config?.name ?? 'input');
    const ref = e.node(name, 'Placeholder', [], {
      dtype: dtype === 'int32' ? A.int32() : A.float(),
      shape: { shape: { dim: shape.map((size) => ({ size })) } },
    });
    e.inputs.push(ref.node);
    return ref;
  };
  if (model.class_name === 'Sequential') {
    let current = inputs?.[0];
    for (const layer of layers) {
      if (!current) {
        current = newInput(layer);
        if (layer.class_name === 'InputLayer') continue;
      }
      const out = applyLayer(e, layer, [current], scope, nested);
      current = out[0];
    }
    if (!current) throw problem('the Sequential model has no layers');
    return [current];
  }
  // functional: layers in order, wired by inbound_nodes
  const list = Array.isArray(config) ? [] : (config.input_layers ?? []);
  const inputNames = (list as unknown[]).map((entry) => (Array.isArray(entry) ? String(entry[0]) : String(entry)));
  for (const layer of layers) {
    const name = String(layer.config?.name ?? layer.name);
    if (layer.class_name === 'InputLayer') {
      const at = inputNames.indexOf(name);
      scope.tensors.set(name, [inputs?.[Math.max(at, 0)] ?? newInput(layer)]);
      continue;
    }
    const refs = inboundOf(layer).map((r) => {
      const produced = scope.tensors.get(r.layer)?.[r.tensor];
      if (!produced) throw problem(`layer ${name} reads ${r.layer}, which comes later or does not exist`);
      return produced;
    });
    if (!refs.length) throw problem(`layer ${name} has no inputs`);
    scope.tensors.set(name, applyLayer(e, { ...layer, config: { ...layer.config, name } }, refs, scope, nested));
  }
  const outs = (Array.isArray(config) ? [] : (config.output_layers ?? [])) as unknown[];
  return outs.map((entry) => {
    const [layer, , index] = Array.isArray(entry) ? entry : [entry, 0, 0];
    const ref = scope.tensors.get(String(layer))?.[Number(index ?? 0)];
    if (!ref) throw problem(`output layer ${String(layer)} does not exist`);
    return ref;
  });
}

/** The canonical RNN/GRU/LSTM op for one Keras recurrent layer (batch-major in and out, as Keras). */
const recurrentConverter = (ctx: ConvertContext): Value[] => {
  const cell = ctx.attrs.string('cell');
  const units = ctx.attrs.int('units');
  const direction = ctx.attrs.string('direction');
  const useBias = ctx.attrs.bool('use_bias');
  const gates = cell === 'RNN' ? 1 : cell === 'GRU' ? 3 : 4;
  const dirs = direction === 'bidirectional' ? 2 : 1;
  const per = useBias ? 3 : 2;
  // Keras gate order → ONNX: GRU z,r,h is the same; LSTM i,f,c,o becomes i,o,f,c
  const order = cell === 'LSTM' ? [0, 3, 1, 2] : Array.from({ length: gates }, (_, g) => g);
  const reorder = (t: HostTensor, rows: number): Float32Array => {
    // t: [rows, gates*units] (kernel) or [gates*units] (bias); out: [gates*units, rows] transposed, gates reordered
    const data = Float32Array.from(toNumberArray(t));
    const out = new Float32Array(data.length);
    const width = gates * units;
    for (let g = 0; g < gates; g++)
      for (let u = 0; u < units; u++) {
        const from = (order[g] as number) * units + u;
        const to = g * units + u;
        for (let r = 0; r < rows; r++) out[to * rows + r] = data[r * width + from] as number;
      }
    return out;
  };
  const ws: Float32Array[] = [];
  const rs: Float32Array[] = [];
  const bs: Float32Array[] = [];
  let inputSize = 0;
  for (let d = 0; d < dirs; d++) {
    const kernel = ctx.constantOf(1 + d * per);
    const recurrentKernel = ctx.constantOf(2 + d * per);
    const bias = useBias ? ctx.constantOf(3 + d * per) : undefined;
    if (!kernel || !recurrentKernel || (useBias && !bias)) throw ctx.problem('recurrent weights must be constants');
    inputSize = kernel.dims[0] as number;
    if (kernel.dims[1] !== gates * units || recurrentKernel.dims[0] !== units)
      throw ctx.problem('recurrent weights have unexpected shapes');
    ws.push(reorder(kernel, inputSize));
    rs.push(reorder(recurrentKernel, units));
    const b = new Float32Array(2 * gates * units);
    if (bias) b.set(reorder(bias, 1));
    bs.push(b);
  }
  const join = (parts: Float32Array[]) => {
    const out = new Float32Array(parts.reduce((a, p) => a + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  };
  const W = ctx.constant({ type: 'float32', dims: [dirs, gates * units, inputSize], data: join(ws) });
  const R = ctx.constant({ type: 'float32', dims: [dirs, gates * units, units], data: join(rs) });
  const B = ctx.constant({ type: 'float32', dims: [dirs, 2 * gates * units], data: join(bs) });
  const names: Record<string, string> = {
    tanh: 'Tanh',
    sigmoid: 'Sigmoid',
    relu: 'Relu',
    hard_sigmoid: 'HardSigmoid',
    hardsigmoid: 'HardSigmoid',
    hardSigmoid: 'HardSigmoid',
    linear: 'Affine',
  };
  const act = (n: string) => {
    const v = names[n];
    if (!v) throw ctx.problem(`activation ${n} is not supported in recurrent layers`);
    return v;
  };
  const f = act(ctx.attrs.string('recurrent_activation'));
  const g = act(ctx.attrs.string('activation'));
  const list = cell === 'RNN' ? [g] : cell === 'GRU' ? [f, g] : [f, g, g];
  const activations = Array.from({ length: dirs }, () => list).flat();
  const alphas = activations.map((a) => (a === 'HardSigmoid' ? 0.2 : a === 'Affine' ? 1 : 0));
  const betas = activations.map((a) => (a === 'HardSigmoid' ? 0.5 : 0));
  const x = ctx.transpose(ctx.input(0), [1, 0, 2]);
  const attrs: Record<string, ReturnType<typeof attr.int>> = {
    hidden_size: attr.int(units),
    direction: attr.string(direction),
    activations: attr.strings(activations),
    activation_alpha: attr.floats(alphas),
    activation_beta: attr.floats(betas),
  };
  const [y, yh] = ctx.op(cell, [x, W, R, B], attrs, cell === 'LSTM' ? 3 : 2) as [Value, Value];
  const merge = ctx.attrs.string('merge');
  const combine = (v: Value, axis: number): Value => {
    if (dirs === 1) return ctx.op1('Squeeze', [v, ctx.int64s([axis])]);
    const [a, b] = ctx.op('Split', [v], { axis: attr.int(axis), num_outputs: attr.int(2) }, 2) as [Value, Value];
    const fa = ctx.op1('Squeeze', [a, ctx.int64s([axis])]);
    const fb = ctx.op1('Squeeze', [b, ctx.int64s([axis])]);
    if (merge === 'concat') return ctx.op1('Concat', [fa, fb], { axis: attr.int(-1) });
    if (merge === 'sum') return ctx.op1('Add', [fa, fb]);
    if (merge === 'mul') return ctx.op1('Mul', [fa, fb]);
    if (merge === 'ave') return ctx.op1('Mul', [ctx.op1('Add', [fa, fb]), ctx.scalar(0.5, 'float32')]);
    throw ctx.problem(`merge_mode ${merge} is not supported`);
  };
  if (!ctx.attrs.bool('return_sequences')) {
    // Y_h [dirs, batch, units]
    return [ctx.note(combine(yh, 0), { rank: 2, dtype: 'float32' })];
  }
  // Y [steps, dirs, batch, units] → [batch, steps, dirs, units]
  let seq = ctx.transpose(y, [2, 0, 1, 3]);
  // Keras returns a backwards layer's outputs in the order it produced them (reversed time)
  if (direction === 'reverse')
    seq = ctx.op1('Slice', [seq, ctx.int64s([-1]), ctx.int64s([-Number.MAX_SAFE_INTEGER]), ctx.int64s([1]), ctx.int64s([-1])]);
  return [ctx.note(combine(seq, 2), { rank: 3, dtype: 'float32' })];
};

const layerConverters: ConverterTable = { [RNN_OP]: recurrentConverter };

/** Parses a layers model's Keras topology with its weights. */
export function parseLayersModel(
  json: Record<string, unknown>,
  weights: ReadonlyMap<string, HostTensor>,
  options: ParseOptions,
  file: string | undefined,
): ParseResult {
  const topology = json.modelTopology as Record<string, unknown>;
  const model = (topology.model_config ?? topology) as LayerJson;
  if (typeof model !== 'object' || model === null || typeof model.class_name !== 'string') throw problem('modelTopology has no class_name');
  const e = new Emitter(weights);
  const outputs = convertModel(e, model, undefined, [], 0);
  const { graph, diagnostics } = importNodes(e.nodes, {
    format: FORMAT,
    weights,
    extraConverters: layerConverters,
    ...(file !== undefined ? { file } : {}),
    ...(options.inputShapes ? { inputShapes: options.inputShapes } : {}),
    ...(options.outputNodes?.length
      ? { outputNodes: options.outputNodes }
      : { namedOutputs: outputs.map((ref) => ({ name: ref.node, ref })) }),
  });
  return { graph, diagnostics };
}

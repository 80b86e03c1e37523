import { attr } from '@tsge/metadef';
import type { ImportContext } from './context.js';
import { options } from './helpers.js';
import { conv2d, depthwiseConv2d, fullyConnected, transposeConv } from './ops/conv.js';
import { binary, compare, logical, prelu, select, unary } from './ops/elementwise.js';
import { unidirectionalSequenceLstm } from './ops/lstm.js';
import { dequantize, quantize } from './ops/quantize.js';
import { l2Normalization, reduce, softmax } from './ops/reduce.js';
import { depthSpace, localResponseNorm, pool2d, resize } from './ops/spatial.js';
import {
  argReduce,
  cast,
  concatenation,
  gather,
  gatherNd,
  pack,
  pad,
  reshape,
  shape,
  slice,
  spaceBatch,
  split,
  stridedSlice,
  tile,
  transpose,
  unpack,
} from './ops/tensor.js';

/** Translates the current operator of the context into canonical nodes. */
export type Translator = (ctx: ImportContext) => void;

/** Builtin operators by name → translator. One table, so the supported set is visible in one place. */
export const TRANSLATORS: Readonly<Record<string, Translator>> = {
  // convolution and dense
  CONV_2D: conv2d,
  DEPTHWISE_CONV_2D: depthwiseConv2d,
  FULLY_CONNECTED: fullyConnected,
  TRANSPOSE_CONV: transposeConv,
  // pooling and spatial
  AVERAGE_POOL_2D: pool2d('average'),
  MAX_POOL_2D: pool2d('max'),
  L2_POOL_2D: pool2d('l2'),
  RESIZE_BILINEAR: resize('linear'),
  RESIZE_NEAREST_NEIGHBOR: resize('nearest'),
  DEPTH_TO_SPACE: depthSpace('DepthToSpace'),
  SPACE_TO_DEPTH: depthSpace('SpaceToDepth'),
  SPACE_TO_BATCH_ND: spaceBatch('to_batch'),
  BATCH_TO_SPACE_ND: spaceBatch('to_space'),
  LOCAL_RESPONSE_NORMALIZATION: localResponseNorm,
  L2_NORMALIZATION: l2Normalization,
  // elementwise binary (slot of the fused activation in the options table)
  ADD: binary('Add', 0),
  SUB: binary('Sub', 0),
  MUL: binary('Mul', 0),
  DIV: binary('Div', 0),
  MAXIMUM: binary('Max'),
  MINIMUM: binary('Min'),
  POW: binary('Pow'),
  SQUARED_DIFFERENCE: binary('SquaredDifference'),
  // elementwise unary
  LOGISTIC: unary('Sigmoid'),
  TANH: unary('Tanh'),
  RELU: unary('Relu'),
  RELU6: unary('Relu6'),
  RELU_N1_TO_1: unary('ReluN1To1'),
  RELU_0_TO_1: unary('Relu0To1'),
  ELU: unary('Elu'),
  LEAKY_RELU: unary('LeakyRelu', (ctx) => ({ alpha: attr.float(options(ctx).float32(0)) })),
  HARD_SWISH: unary('HardSwish'),
  GELU: unary('Gelu', (ctx) => ({ approximate: attr.string(options(ctx).bool(0) ? 'tanh' : 'none') })),
  EXP: unary('Exp'),
  LOG: unary('Log'),
  SQRT: unary('Sqrt'),
  RSQRT: unary('Rsqrt'),
  SQUARE: unary('Square'),
  ABS: unary('Abs'),
  NEG: unary('Neg'),
  FLOOR: unary('Floor'),
  CEIL: unary('Ceil'),
  ROUND: unary('Round'),
  SIN: unary('Sin'),
  COS: unary('Cos'),
  SIGN: unary('Sign'),
  PRELU: prelu,
  // comparisons, logic, selection
  EQUAL: compare('Equal'),
  NOT_EQUAL: compare('Equal', true),
  LESS: compare('Less'),
  LESS_EQUAL: compare('LessOrEqual'),
  GREATER: compare('Greater'),
  GREATER_EQUAL: compare('GreaterOrEqual'),
  LOGICAL_AND: logical('And'),
  LOGICAL_OR: logical('Or'),
  LOGICAL_NOT: logical('Not'),
  SELECT: select,
  SELECT_V2: select,
  // reductions and normalisation
  MEAN: reduce('ReduceMean'),
  SUM: reduce('ReduceSum'),
  REDUCE_MAX: reduce('ReduceMax'),
  REDUCE_MIN: reduce('ReduceMin'),
  REDUCE_PROD: reduce('ReduceProd'),
  SOFTMAX: softmax('Softmax'),
  LOG_SOFTMAX: softmax('LogSoftmax'),
  ARG_MAX: argReduce('ArgMax'),
  ARG_MIN: argReduce('ArgMin'),
  // data movement
  RESHAPE: reshape,
  SQUEEZE: reshape,
  EXPAND_DIMS: reshape,
  CONCATENATION: concatenation,
  SPLIT: split('split'),
  SPLIT_V: split('split_v'),
  PAD: pad('constant'),
  PADV2: pad('constant'),
  MIRROR_PAD: pad('mirror'),
  TRANSPOSE: transpose,
  SLICE: slice,
  STRIDED_SLICE: stridedSlice,
  GATHER: gather,
  GATHER_ND: gatherNd,
  PACK: pack,
  UNPACK: unpack,
  TILE: tile('Tile'),
  BROADCAST_TO: tile('Expand'),
  SHAPE: shape,
  CAST: cast,
  // quantization
  QUANTIZE: quantize,
  DEQUANTIZE: dequantize,
  // recurrent
  UNIDIRECTIONAL_SEQUENCE_LSTM: unidirectionalSequenceLstm,
};

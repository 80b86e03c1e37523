import { convolutionLayer, deconvolutionLayer, innerProductLayer, poolingLayer } from './conv-pool.js';
import {
  absLayer,
  bnllLayer,
  dropoutLayer,
  eltwiseLayer,
  eluLayer,
  expLayer,
  logLayer,
  powerLayer,
  preluLayer,
  reluLayer,
  sigmoidLayer,
  tanhLayer,
  thresholdLayer,
} from './elementwise.js';
import { batchNormLayer, biasLayer, lrnLayer, mvnLayer, normalizeLayer, scaleLayer } from './normalization.js';
import { detectionOutputLayer } from './detection-output.js';
import { priorBoxLayer } from './prior-box.js';
import type { LayerConverter } from './shared.js';
import {
  argMaxLayer,
  concatLayer,
  cropLayer,
  flattenLayer,
  interpLayer,
  permuteLayer,
  reductionLayer,
  reshapeLayer,
  shuffleChannelLayer,
  silenceLayer,
  sliceLayer,
  softmaxLayer,
  splitLayer,
  tileLayer,
  upsampleLayer,
} from './tensor.js';

/** Caffe layer type → converter. Input and data layers are handled by the network builder. */
export const LAYER_CONVERTERS: ReadonlyMap<string, LayerConverter> = new Map<string, LayerConverter>([
  ['Convolution', convolutionLayer],
  ['Deconvolution', deconvolutionLayer],
  ['Pooling', poolingLayer],
  ['InnerProduct', innerProductLayer],
  ['ReLU', reluLayer],
  ['PReLU', preluLayer],
  ['ELU', eluLayer],
  ['Sigmoid', sigmoidLayer],
  ['TanH', tanhLayer],
  ['AbsVal', absLayer],
  ['Power', powerLayer],
  ['Exp', expLayer],
  ['Log', logLayer],
  ['BNLL', bnllLayer],
  ['Threshold', thresholdLayer],
  ['BatchNorm', batchNormLayer],
  ['Scale', scaleLayer],
  ['Bias', biasLayer],
  ['Eltwise', eltwiseLayer],
  ['Concat', concatLayer],
  ['Slice', sliceLayer],
  ['Split', splitLayer],
  ['Softmax', softmaxLayer],
  ['LRN', lrnLayer],
  ['MVN', mvnLayer],
  ['Dropout', dropoutLayer],
  ['Flatten', flattenLayer],
  ['Reshape', reshapeLayer],
  ['Permute', permuteLayer],
  ['Crop', cropLayer],
  ['Normalize', normalizeLayer],
  ['PriorBox', priorBoxLayer],
  ['DetectionOutput', detectionOutputLayer],
  ['Interp', interpLayer],
  ['Upsample', upsampleLayer],
  ['ArgMax', argMaxLayer],
  ['Reduction', reductionLayer],
  ['ShuffleChannel', shuffleChannelLayer],
  ['Tile', tileLayer],
  ['Silence', silenceLayer],
]);

/** Layers that only feed data in training nets; their tops become graph inputs. */
export const DATA_LAYERS: ReadonlySet<string> = new Set(['Data', 'ImageData', 'MemoryData', 'HDF5Data', 'WindowData', 'AnnotatedData']);

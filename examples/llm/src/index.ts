export { Safetensors, writeSafetensors, type SafetensorsDtype, type SafetensorsEntry } from './safetensors.js';
export { parseConfig, type DecoderConfig } from './config.js';
export { buildDecoderGraph, rotaryCaches, INT4_BLOCK, type WeightSource, type DecoderGraphOptions } from './decoder-graph.js';
export { readCheckpoint, type Checkpoint } from './checkpoint.js';
export { Decoder, type DecoderOptions } from './decoder.js';
export { sampler, argmax, seededRandom, type SamplingOptions } from './sample.js';
export { generate, type GenerateOptions, type GenerateStats } from './generate.js';
export { quantizeInt4, dequantizeInt4, type Int4Weight } from './quantize.js';

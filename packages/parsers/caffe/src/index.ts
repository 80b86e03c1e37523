// @tsge/parser-caffe public API.
export { caffeParser } from './parser.js';
export { parseCaffe, initializeCaffemodel, type CaffeParseExtra, type InitializeCaffemodelOptions } from './parse-caffe.js';
export type { BlobValuesFn } from './convert/context.js';
export { sniffCaffe } from './sniff.js';
export { CAFFE_ONNX_OPSET } from './convert/convert-net.js';

// @tsge/parser-onnx public API.
export { onnxParser } from './parser.js';
export { parseOnnx, type OnnxParseExtra, ATTR_OPSET_IMPORTS, ATTR_IR_VERSION, ATTR_PRODUCER } from './parse-model.js';
export { ATTR_OPSET, ATTR_IMPLICIT_INPUTS, ATTR_IMPLICIT_INPUT, ATTR_FORMAL_INPUTS } from './import/graph-importer.js';
export { decodeTensorProto, decodeValueProto, type ValueProtoKind } from './tensor/decode-value.js';
export { sniffOnnx } from './sniff.js';

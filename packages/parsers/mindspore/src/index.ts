// @tsge/parser-mindspore public API.
export { mindsporeParser } from './parser.js';
export { parseMindir, isEncryptedMindir, MINDIR_ONNX_OPSET } from './mindir/parse-mindir.js';
export { parseMindsporeAir } from './air/parse-ms-air.js';
export { sniffMindspore } from './sniff.js';

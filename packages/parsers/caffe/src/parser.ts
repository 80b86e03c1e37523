import type { ParserV1 } from '@tsge/metadef';
import { parseCaffe } from './parse-caffe.js';
import { sniffCaffe } from './sniff.js';

/** The Caffe parser plugin (GE framework 0): `.prototxt` + `.caffemodel`, or a caffemodel alone. */
export const caffeParser: ParserV1 = {
  specVersion: 'v1',
  name: 'caffe',
  framework: 0,
  extensions: ['.prototxt', '.caffemodel'],
  sniff: sniffCaffe,
  parse: parseCaffe,
};

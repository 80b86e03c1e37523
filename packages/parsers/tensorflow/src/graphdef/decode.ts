import { type IGraphDef, tf, tfDescriptor } from '../internal/proto.js';
import { TfProblem, malformed } from '../internal/problem.js';
import { parseTextFormat } from './text-format.js';

/** True when the bytes look like protobuf text rather than binary (printable ASCII from the start). */
export function looksLikeText(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 512);
  if (n === 0) return false;
  let first = -1;
  for (let i = 0; i < n; i++) {
    const b = bytes[i] as number;
    if (b === 9 || b === 10 || b === 13 || b === 32) continue;
    if (b < 32 || b > 126) return false;
    if (first < 0) first = b;
  }
  return first >= 0 && /[A-Za-z_#]/.test(String.fromCharCode(first));
}

/** Decodes a GraphDef from binary protobuf or protobuf text. */
export function decodeGraphDef(bytes: Uint8Array, path?: string): IGraphDef {
  const text = /\.(pbtxt|txt|prototxt)$/i.test(path ?? '') || looksLikeText(bytes);
  if (text) {
    let source: string;
    try {
      source = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw malformed('GraphDef text', 'the file is not UTF-8 text');
    }
    const object = parseTextFormat(source, tfDescriptor, 'tensorflow.GraphDef');
    try {
      return tf.GraphDef.fromObject(object);
    } catch (error) {
      throw malformed('GraphDef text', error instanceof Error ? error.message : String(error));
    }
  }
  try {
    return tf.GraphDef.decode(bytes);
  } catch (error) {
    if (error instanceof TfProblem) throw error;
    throw malformed('GraphDef', error instanceof Error ? error.message : String(error));
  }
}

import { looksLikeText } from './graphdef/decode.js';
import { looksLikeSavedModel } from './saved_model/parse-saved-model.js';

/**
 * Confidence that bytes are a GraphDef or a SavedModel's saved_model.pb. Binary: the first field is GraphDef.node (tag 0x0a) whose
 * NodeDef starts with its name (0x0a) and op, or versions/library; text: starts with `node {`.
 */
export function sniffGraphDef(bytes: Uint8Array, path?: string): number {
  const ext = (path ?? '').toLowerCase();
  if (looksLikeSavedModel(bytes, path)) return /saved_model\.pb(txt)?$/.test(ext) ? 0.95 : 0.6;
  if (looksLikeText(bytes)) {
    const head = new TextDecoder()
      .decode(bytes.subarray(0, 256))
      .replace(/#[^\n]*\n/g, '')
      .trimStart();
    return /^(node|versions|library)\s*[{:<]/.test(head) ? 0.9 : 0;
  }
  if (bytes.length < 4) return 0;
  if (bytes[0] === 0x0a) {
    // length varint, then the NodeDef's name field (0x0a)
    let i = 1;
    while (i < 6 && ((bytes[i] as number) & 0x80) !== 0) i++;
    if (bytes[i + 1] === 0x0a) return ext.endsWith('.pb') ? 0.8 : 0.5;
  }
  if ((bytes[0] === 0x22 || bytes[0] === 0x12) && ext.endsWith('.pb')) return 0.4;
  return 0;
}

import protobuf from 'protobufjs/minimal.js';

/** NetParameter field numbers and their wire types (input_dim may be packed). */
const NET_FIELDS: ReadonlyMap<number, readonly number[]> = new Map([
  [1, [2]],
  [2, [2]],
  [3, [2]],
  [4, [0, 2]],
  [5, [0]],
  [6, [2]],
  [7, [0]],
  [8, [2]],
  [100, [2]],
]);

/** Walks the first fields of the bytes as a NetParameter; true when they are one with layers. */
export function looksLikeBinaryNet(bytes: Uint8Array): boolean {
  try {
    const reader = protobuf.Reader.create(bytes);
    let fields = 0;
    let layers = false;
    while (reader.pos < bytes.length && fields < 16) {
      const tag = reader.uint32();
      const field = tag >>> 3;
      const wire = tag & 7;
      if (!NET_FIELDS.get(field)?.includes(wire)) return false;
      if (field === 2 || field === 100) layers = true;
      reader.skipType(wire);
      fields++;
    }
    return layers;
  } catch {
    return false;
  }
}

const TEXT_PROBE = 64 * 1024;

/** Confidence that bytes are a Caffe prototxt or caffemodel. */
export function sniffCaffe(bytes: Uint8Array, path?: string): number {
  const byExtension = path !== undefined && /\.(prototxt|caffemodel)$/i.test(path);
  if (looksLikeBinaryNet(bytes)) return byExtension ? 0.95 : 0.6;
  const head = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, TEXT_PROBE));
  const layered = /(^|\n)\s*layers?\s*\{/.test(head) && /\b(type|top|bottom)\s*:/.test(head);
  const inputOnly = /(^|\n)\s*input\s*:\s*"/.test(head);
  if (layered || inputOnly) return byExtension ? 0.95 : 0.7;
  return byExtension ? 0.3 : 0;
}

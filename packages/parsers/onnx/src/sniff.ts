import protobuf from 'protobufjs/minimal.js';

/** ModelProto field numbers and their wire types (0 varint, 2 length-delimited). */
const MODEL_FIELDS: ReadonlyMap<number, number> = new Map([
  [1, 0],
  [2, 2],
  [3, 2],
  [4, 2],
  [5, 0],
  [6, 2],
  [7, 2],
  [8, 2],
  [14, 2],
  [20, 2],
  [25, 2],
  [26, 2],
]);

/**
 * Confidence that bytes are an ONNX ModelProto: the first fields must be ModelProto fields with
 * the right wire types, starting with ir_version or producer fields; the extension adds weight.
 */
export function sniffOnnx(bytes: Uint8Array, path?: string): number {
  const byExtension = path !== undefined && /\.onnx$/i.test(path);
  let fields = 0;
  let sawGraphOrIr = false;
  try {
    const reader = protobuf.Reader.create(bytes);
    while (reader.pos < bytes.length && fields < 8) {
      const tag = reader.uint32();
      const field = tag >>> 3;
      const wire = tag & 7;
      if (MODEL_FIELDS.get(field) !== wire) return byExtension ? 0.3 : 0;
      if (field === 1 || field === 7 || field === 8) sawGraphOrIr = true;
      reader.skipType(wire);
      fields++;
    }
  } catch {
    return byExtension ? 0.3 : 0;
  }
  if (fields === 0) return 0;
  const structural = sawGraphOrIr ? 0.8 : 0.4;
  return Math.min(1, structural + (byExtension ? 0.2 : 0));
}

// Moves the initializers of a real ONNX model into a side file (ONNX external data), editing the
// protobuf wire format directly so any model can be rewritten without its schema.
import protobuf from 'protobufjs/minimal.js';

const { Reader, Writer } = protobuf;

interface Field {
  readonly number: number;
  /** The whole field as encoded (tag included). */
  readonly encoded: Uint8Array;
  /** The payload of a length-delimited field. */
  readonly payload?: Uint8Array;
}

function fieldsOf(bytes: Uint8Array): Field[] {
  const reader = Reader.create(bytes);
  const fields: Field[] = [];
  while (reader.pos < reader.len) {
    const start = reader.pos;
    const tag = reader.uint32();
    const wire = tag & 7;
    const payload = wire === 2 ? reader.bytes() : undefined;
    if (wire !== 2) reader.skipType(wire);
    fields.push({ number: tag >>> 3, encoded: bytes.subarray(start, reader.pos), ...(payload ? { payload } : {}) });
  }
  return fields;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const lengthDelimited = (number: number, payload: Uint8Array): Uint8Array =>
  Writer.create()
    .uint32((number << 3) | 2)
    .bytes(payload)
    .finish();

// ModelProto.graph = 7, GraphProto.initializer = 5; TensorProto.float_data = 4 (packed, which
// is exactly raw float32 bytes), raw_data = 9, external_data = 13, data_location = 14 (EXTERNAL = 1);
// StringStringEntryProto key = 1, value = 2
const MODEL_GRAPH = 7;
const GRAPH_INITIALIZER = 5;
const TENSOR_FLOAT_DATA = 4;
const TENSOR_RAW_DATA = 9;
const TENSOR_EXTERNAL_DATA = 13;
const TENSOR_DATA_LOCATION = 14;

export interface ExternalizedModel {
  readonly model: Uint8Array;
  /** The side file: each tensor's raw bytes at `base + its offset`, 64-byte aligned. */
  readonly data: Uint8Array;
  /** How many initializers moved. */
  readonly count: number;
}

/**
 * Rewrites every initializer that holds raw_data or float_data to external data in `location`, at `base` plus
 * its offset in `data` (a large `base` puts the tensors far into a sparse file).
 */
export function externalizeInitializers(model: Uint8Array, location: string, base = 0): ExternalizedModel {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let count = 0;
  const tensor = (bytes: Uint8Array): Uint8Array => {
    const fields = fieldsOf(bytes);
    const raw = fields.find((f) => f.number === TENSOR_RAW_DATA || f.number === TENSOR_FLOAT_DATA)?.payload;
    if (!raw) return bytes;
    const offset = Math.ceil(size / 64) * 64;
    if (offset > size) chunks.push(new Uint8Array(offset - size));
    chunks.push(raw);
    size = offset + raw.length;
    count++;
    const entry = (key: string, value: string): Uint8Array =>
      lengthDelimited(
        TENSOR_EXTERNAL_DATA,
        Writer.create()
          .uint32((1 << 3) | 2)
          .string(key)
          .uint32((2 << 3) | 2)
          .string(value)
          .finish(),
      );
    const kept = fields.filter((f) => ![TENSOR_FLOAT_DATA, TENSOR_RAW_DATA, TENSOR_EXTERNAL_DATA, TENSOR_DATA_LOCATION].includes(f.number));
    return concat([
      ...kept.map((f) => f.encoded),
      entry('location', location),
      entry('offset', String(base + offset)),
      entry('length', String(raw.length)),
      Writer.create()
        .uint32(TENSOR_DATA_LOCATION << 3)
        .int32(1)
        .finish(),
    ]);
  };
  const graph = (bytes: Uint8Array): Uint8Array =>
    concat(
      fieldsOf(bytes).map((f) =>
        f.number === GRAPH_INITIALIZER && f.payload ? lengthDelimited(GRAPH_INITIALIZER, tensor(f.payload)) : f.encoded,
      ),
    );
  const rewritten = concat(
    fieldsOf(model).map((f) => (f.number === MODEL_GRAPH && f.payload ? lengthDelimited(MODEL_GRAPH, graph(f.payload)) : f.encoded)),
  );
  return { model: rewritten, data: concat(chunks), count };
}

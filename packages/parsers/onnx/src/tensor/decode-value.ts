import protobuf from 'protobufjs/minimal.js';
import { type HostTensor, type OptionalValue, type RuntimeValue, type SequenceValue, TsgeError, dataTypeFromOnnx } from '@tsge/metadef';
import { OnnxProblem } from '../internal/problem.js';
import { type IOptionalProto, type ISequenceProto, type ISparseTensorProto, type ITensorProto, onnx } from '../internal/proto.js';
import { decodeTensor, densifySparse } from './decode-tensor.js';

/** What a serialized value file holds; test files do not say, so callers pass what the model expects. */
export type ValueProtoKind = 'tensor' | 'sequence' | 'optional' | 'map';

const MAX_NESTING = 16;

function fail(error: unknown, what: string): never {
  if (TsgeError.isInstance(error)) throw error;
  if (error instanceof OnnxProblem) throw TsgeError.of(error.code, error.args);
  const reason = error instanceof Error ? error.message : String(error);
  throw TsgeError.of('TSGE-E3003', { reason: `not a valid ${what}: ${reason}` });
}

/** Decodes a serialized TensorProto (raw or typed fields; no external data). Throws TsgeError when malformed. */
export function decodeTensorProto(bytes: Uint8Array): HostTensor {
  try {
    return decodeTensor(onnx.TensorProto.decode(bytes));
  } catch (error) {
    fail(error, 'TensorProto');
  }
}

function sparse(s: ISparseTensorProto): HostTensor {
  if (!s.values || !s.indices) throw new Error('sparse tensor lacks values or indices');
  return densifySparse(s, decodeTensor(s.values), decodeTensor(s.indices));
}

/** SequenceProto/OptionalProto elem_type numbers. */
const ELEM = { TENSOR: 1, SPARSE_TENSOR: 2, SEQUENCE: 3, MAP: 4, OPTIONAL: 5 } as const;

function sequence(s: ISequenceProto, depth: number): SequenceValue {
  if (depth > MAX_NESTING) throw new Error('values nested too deeply');
  let items: HostTensor[];
  switch (s.elemType ?? 0) {
    case ELEM.TENSOR:
      items = (s.tensorValues ?? []).map((t: ITensorProto) => decodeTensor(t));
      break;
    case ELEM.SPARSE_TENSOR:
      items = (s.sparseTensorValues ?? []).map(sparse);
      break;
    case 0:
      items = [];
      break;
    default:
      throw new Error(`sequences of element type ${s.elemType} are not supported`);
  }
  const first = items[0];
  const fromTensor = s.tensorValues?.[0]?.dataType;
  const elementType = first?.type ?? dataTypeFromOnnx(fromTensor ?? 1) ?? 'float32';
  return { kind: 'sequence', elementType, items };
}

function optional(o: IOptionalProto, depth: number): OptionalValue {
  if (depth > MAX_NESTING) throw new Error('values nested too deeply');
  switch (o.elemType ?? 0) {
    case ELEM.TENSOR:
      return { kind: 'optional', value: o.tensorValue ? decodeTensor(o.tensorValue) : undefined };
    case ELEM.SPARSE_TENSOR:
      return { kind: 'optional', value: o.sparseTensorValue ? sparse(o.sparseTensorValue) : undefined };
    case ELEM.SEQUENCE:
      return { kind: 'optional', value: o.sequenceValue ? sequence(o.sequenceValue, depth + 1) : undefined };
    case 0:
      return { kind: 'optional', value: undefined };
    default:
      throw new Error(`optionals of element type ${o.elemType} are not supported`);
  }
}

/** Top-level field numbers of a protobuf message (stops at the first malformed tag). */
function topLevelFields(bytes: Uint8Array): Set<number> {
  const fields = new Set<number>();
  try {
    const reader = protobuf.Reader.create(bytes);
    while (reader.pos < bytes.length) {
      const tag = reader.uint32();
      fields.add(tag >>> 3);
      reader.skipType(tag & 7);
    }
  } catch {
    // partial information is enough for a guess
  }
  return fields;
}

function guessKind(bytes: Uint8Array): ValueProtoKind {
  const fields = topLevelFields(bytes);
  for (const f of [4, 5, 6, 7, 9, 10, 11, 13, 14]) if (fields.has(f)) return 'tensor';
  if (fields.has(3) || fields.has(5) || fields.has(7)) return 'sequence';
  if (fields.has(1) && !fields.has(2)) return 'tensor';
  return fields.has(2) && !fields.has(1) ? 'tensor' : 'sequence';
}

/**
 * Decodes a serialized value: TensorProto, SequenceProto or OptionalProto (MapProto is not a
 * runtime value in tsge and is rejected). The formats share field numbers, so pass `kind` when the
 * model says what it expects; without it the kind is guessed from the fields present.
 */
export function decodeValueProto(bytes: Uint8Array, kind?: ValueProtoKind): RuntimeValue {
  const resolved = kind ?? guessKind(bytes);
  try {
    switch (resolved) {
      case 'tensor':
        return decodeTensor(onnx.TensorProto.decode(bytes));
      case 'sequence':
        return sequence(onnx.SequenceProto.decode(bytes), 0);
      case 'optional':
        return optional(onnx.OptionalProto.decode(bytes), 0);
      default:
        throw new Error('MapProto values are not supported');
    }
  } catch (error) {
    fail(error, resolved === 'tensor' ? 'TensorProto' : resolved === 'sequence' ? 'SequenceProto' : 'OptionalProto');
  }
}

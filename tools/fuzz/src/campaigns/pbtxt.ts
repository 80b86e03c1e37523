// Protobuf text of a real binary message, written from its schema (protobufjs reflection): the
// `.pbtxt` seeds are the real frozen GraphDefs as TensorFlow would print them.
import protobuf from 'protobufjs';

function quote(bytes: Uint8Array): string {
  let out = '"';
  for (const b of bytes) {
    if (b === 0x22 || b === 0x5c) out += `\\${String.fromCharCode(b)}`;
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\${b.toString(8).padStart(3, '0')}`;
  }
  return `${out}"`;
}

function scalar(field: protobuf.Field, value: unknown): string {
  if (field.resolvedType instanceof protobuf.Enum) return field.resolvedType.valuesById[value as number] ?? String(value);
  if (field.type === 'string') return quote(new TextEncoder().encode(value as string));
  if (field.type === 'bytes') return quote(value as Uint8Array);
  if (field.type === 'bool') return value ? 'true' : 'false';
  return String(value);
}

function render(type: protobuf.Type, message: Record<string, unknown>, indent: string, out: string[]): void {
  for (const field of type.fieldsArray) {
    const value = message[field.name];
    if (value === undefined || value === null) continue;
    const name = field.name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    if (field instanceof protobuf.MapField) {
      for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
        out.push(`${indent}${name} {`, `${indent}  key: ${quote(new TextEncoder().encode(key))}`);
        if (field.resolvedType instanceof protobuf.Type) {
          out.push(`${indent}  value {`);
          render(field.resolvedType, entry as Record<string, unknown>, `${indent}    `, out);
          out.push(`${indent}  }`);
        } else out.push(`${indent}  value: ${scalar(field, entry)}`);
        out.push(`${indent}}`);
      }
      continue;
    }
    const values = field.repeated ? (value as unknown[]) : [value];
    for (const v of values) {
      if (field.resolvedType instanceof protobuf.Type) {
        out.push(`${indent}${name} {`);
        render(field.resolvedType, v as Record<string, unknown>, `${indent}  `, out);
        out.push(`${indent}}`);
      } else out.push(`${indent}${name}: ${scalar(field, v)}`);
    }
  }
}

const schemas = new Map<string, protobuf.Root>();
/** A .proto file's schema, loaded once. */
export function schema(protoPath: string): protobuf.Root {
  let root = schemas.get(protoPath);
  if (!root) {
    root = protobuf.loadSync(protoPath);
    schemas.set(protoPath, root);
  }
  return root;
}

/** `bytes`, a binary `typeName` message of the schema at `protoPath`, as protobuf text. */
export function toProtoText(protoPath: string, typeName: string, bytes: Uint8Array): string {
  const type = schema(protoPath).lookupType(typeName);
  const message = type.toObject(type.decode(bytes), { longs: String, enums: Number, bytes: Uint8Array as unknown as StringConstructor });
  const out: string[] = [];
  render(type, message as Record<string, unknown>, '', out);
  return `${out.join('\n')}\n`;
}

// Protobuf text format (`.pbtxt`) reader. protobufjs reads binary and JSON only, and no maintained
// npm package reads the text format against a protobufjs schema, so this small reader tokenizes the
// text and walks the schema's JSON descriptor (generated from the same .proto) to build the plain
// object that the static module's `fromObject` turns into a message. Unknown fields are skipped,
// as TensorFlow writes fields this schema subset leaves out.
import { LIMITS, TfProblem } from '../internal/problem.js';

interface FieldDescriptor {
  readonly type: string;
  readonly id: number;
  readonly rule?: string;
  readonly keyType?: string;
}
interface TypeDescriptor {
  readonly fields?: Readonly<Record<string, FieldDescriptor>>;
  readonly values?: Readonly<Record<string, number>>;
  readonly nested?: Readonly<Record<string, TypeDescriptor>>;
}

type Token =
  | { kind: 'ident'; text: string; at: number }
  | { kind: 'number'; text: string; at: number }
  | { kind: 'string'; bytes: Uint8Array; at: number }
  | { kind: 'punct'; text: string; at: number };

const SCALARS = new Set([
  'double',
  'float',
  'int32',
  'uint32',
  'sint32',
  'fixed32',
  'sfixed32',
  'int64',
  'uint64',
  'sint64',
  'fixed64',
  'sfixed64',
  'bool',
  'string',
  'bytes',
]);

function fail(reason: string, at?: number): TfProblem {
  return new TfProblem('TSGE-E3101', { format: 'protobuf text', reason: at !== undefined ? `${reason} at offset ${at}` : reason });
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const encoder = new TextEncoder();
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i] as string;
    if (c === '#') {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v') {
      i++;
      continue;
    }
    const at = i;
    if (c === '"' || c === "'") {
      const bytes: number[] = [];
      i++;
      for (;;) {
        if (i >= n) throw fail('unterminated string', at);
        const d = text[i] as string;
        if (d === c) {
          i++;
          break;
        }
        if (d === '\n') throw fail('newline in string', at);
        if (d !== '\\') {
          const code = text.codePointAt(i) as number;
          const ch = String.fromCodePoint(code);
          for (const b of encoder.encode(ch)) bytes.push(b);
          i += ch.length;
          continue;
        }
        i++;
        const e = text[i] as string;
        i++;
        const simple: Record<string, number> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, '\\': 92, "'": 39, '"': 34, '?': 63 };
        if (e in simple) bytes.push(simple[e] as number);
        else if (e >= '0' && e <= '7') {
          let v = Number(e);
          for (let k = 0; k < 2 && i < n && (text[i] as string) >= '0' && (text[i] as string) <= '7'; k++) v = v * 8 + Number(text[i++]);
          bytes.push(v & 0xff);
        } else if (e === 'x' || e === 'X') {
          let h = '';
          while (h.length < 2 && i < n && /[0-9a-fA-F]/.test(text[i] as string)) h += text[i++];
          if (!h) throw fail('bad \\x escape', at);
          bytes.push(Number.parseInt(h, 16));
        } else if (e === 'u' || e === 'U') {
          const len = e === 'u' ? 4 : 8;
          const h = text.slice(i, i + len);
          if (!/^[0-9a-fA-F]+$/.test(h) || h.length !== len) throw fail('bad unicode escape', at);
          i += len;
          const cp = Number.parseInt(h, 16);
          if (cp > 0x10ffff) throw fail('bad unicode escape', at);
          for (const b of encoder.encode(String.fromCodePoint(cp))) bytes.push(b);
        } else throw fail(`unknown escape \\${e}`, at);
      }
      const last = tokens[tokens.length - 1];
      // adjacent string literals concatenate
      if (last?.kind === 'string') {
        const joined = new Uint8Array(last.bytes.length + bytes.length);
        joined.set(last.bytes);
        joined.set(bytes, last.bytes.length);
        tokens[tokens.length - 1] = { kind: 'string', bytes: joined, at: last.at };
      } else tokens.push({ kind: 'string', bytes: Uint8Array.from(bytes), at });
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      while (i < n && /[A-Za-z0-9_.]/.test(text[i] as string)) i++;
      tokens.push({ kind: 'ident', text: text.slice(at, i), at });
      continue;
    }
    if (/[0-9.+-]/.test(c)) {
      i++;
      while (i < n && /[0-9A-Za-z_.+-]/.test(text[i] as string)) {
        // a sign inside a number only follows an exponent marker
        if ((text[i] === '+' || text[i] === '-') && !/[eE]/.test(text[i - 1] as string)) break;
        i++;
      }
      tokens.push({ kind: 'number', text: text.slice(at, i), at });
      continue;
    }
    if ('{}<>[]:,;/'.includes(c)) {
      tokens.push({ kind: 'punct', text: c, at });
      i++;
      continue;
    }
    throw fail(`unexpected character ${JSON.stringify(c)}`, at);
  }
  return tokens;
}

class Reader {
  private pos = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly root: TypeDescriptor,
  ) {}

  private peek(): Token | undefined {
    return this.tokens[this.pos];
  }
  private next(): Token {
    const t = this.tokens[this.pos++];
    if (!t) throw fail('unexpected end of text');
    return t;
  }
  private isPunct(text: string): boolean {
    const t = this.peek();
    return t?.kind === 'punct' && t.text === text;
  }

  /** Resolves a type name as protobuf does: innermost scope first. */
  private resolve(name: string, scope: readonly string[]): { type: TypeDescriptor; path: string[] } | undefined {
    const parts = name.split('.');
    for (let depth = scope.length; depth >= 0; depth--) {
      let node: TypeDescriptor | undefined = this.root;
      const path = scope.slice(0, depth);
      for (const p of path) node = node?.nested?.[p];
      for (const p of parts) node = node?.nested?.[p];
      if (node) return { type: node, path: [...path, ...parts] };
    }
    return undefined;
  }

  readMessage(type: TypeDescriptor, path: string[], end: string | undefined, depth: number): Record<string, unknown> {
    if (depth > LIMITS.textDepth) throw fail(`messages nested deeper than ${LIMITS.textDepth}`);
    const out: Record<string, unknown> = {};
    for (;;) {
      const t = this.peek();
      if (!t) {
        if (end) throw fail(`expected ${end}`);
        return out;
      }
      if (end && t.kind === 'punct' && t.text === end) {
        this.pos++;
        return out;
      }
      if (t.kind === 'punct' && t.text === '[') {
        // an extension or Any type URL: skip the field
        while (!this.isPunct(']')) this.next();
        this.pos++;
        this.skipValue(depth);
        this.skipSeparator();
        continue;
      }
      if (t.kind !== 'ident') throw fail('expected a field name', t.at);
      this.pos++;
      const camel = t.text.replace(/_([a-z0-9])/g, (_, ch: string) => ch.toUpperCase());
      // own keys only: a field named `constructor` or `__proto__` in the file is unknown, not Object's
      const fieldOf = (name: string) => (type.fields && Object.hasOwn(type.fields, name) ? type.fields[name] : undefined);
      const field = fieldOf(camel) ?? fieldOf(t.text);
      const key = fieldOf(camel) ? camel : t.text;
      if (!field) this.skipValue(depth);
      else if (field.keyType) {
        const entry = this.readFieldValue('__map_entry__', field, path, depth) as { key?: unknown; value?: unknown }[];
        const map = (out[key] as Record<string, unknown> | undefined) ?? {};
        // an own property even for a key `__proto__` (assignment would replace the map's prototype)
        for (const e of entry)
          Object.defineProperty(map, String(e.key ?? ''), { value: e.value ?? {}, enumerable: true, writable: true, configurable: true });
        out[key] = map;
      } else {
        const values = this.readFieldValue(field.type, field, path, depth);
        if (field.rule === 'repeated') out[key] = [...((out[key] as unknown[] | undefined) ?? []), ...values];
        else out[key] = values[values.length - 1];
      }
      this.skipSeparator();
    }
  }

  private skipSeparator(): void {
    if (this.isPunct(',') || this.isPunct(';')) this.pos++;
  }

  /** One field's value(s): a scalar, a message, or a `[...]` list of either. */
  private readFieldValue(typeName: string, field: FieldDescriptor, path: string[], depth: number): unknown[] {
    const colon = this.isPunct(':');
    if (colon) this.pos++;
    if (this.isPunct('[')) {
      this.pos++;
      const values: unknown[] = [];
      while (!this.isPunct(']')) {
        values.push(this.readOne(typeName, field, path, depth));
        if (this.isPunct(',')) this.pos++;
        else if (!this.isPunct(']')) throw fail('expected , or ] in a list', this.peek()?.at);
      }
      this.pos++;
      return values;
    }
    return [this.readOne(typeName, field, path, depth)];
  }

  private readOne(typeName: string, field: FieldDescriptor, path: string[], depth: number): unknown {
    if (typeName === '__map_entry__') {
      const entry: FieldDescriptor = { type: field.type, id: 2 };
      const entryType: TypeDescriptor = { fields: { key: { type: field.keyType as string, id: 1 }, value: entry } };
      return this.readBlock(entryType, path, depth);
    }
    if (SCALARS.has(typeName)) return this.readScalar(typeName);
    const resolved = this.resolve(typeName, path);
    if (!resolved) throw fail(`schema has no type ${typeName}`);
    if (resolved.type.values) {
      const t = this.next();
      if (t.kind === 'ident') return t.text;
      if (t.kind === 'number') return this.integer(t.text, t.at);
      throw fail('expected an enum value', t.at);
    }
    return this.readBlock(resolved.type, resolved.path, depth);
  }

  private readBlock(type: TypeDescriptor, path: string[], depth: number): Record<string, unknown> {
    const open = this.next();
    if (open.kind !== 'punct' || (open.text !== '{' && open.text !== '<')) throw fail('expected { or <', open.at);
    return this.readMessage(type, path, open.text === '{' ? '}' : '>', depth + 1);
  }

  private integer(text: string, at: number): number | string {
    const negative = text.startsWith('-');
    const body = text.replace(/^[-+]/, '');
    let value: bigint;
    try {
      value = BigInt(/^0[0-7]+$/.test(body) ? `0o${body.slice(1)}` : body);
    } catch {
      throw fail(`bad integer ${text}`, at);
    }
    if (negative) value = -value;
    return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  }

  private readScalar(type: string): unknown {
    const t = this.next();
    if (type === 'string' || type === 'bytes') {
      if (t.kind !== 'string') throw fail('expected a string', t.at);
      return type === 'string' ? new TextDecoder().decode(t.bytes) : t.bytes;
    }
    if (type === 'bool') {
      const text = t.kind === 'ident' || t.kind === 'number' ? t.text : '';
      if (['true', 'True', 't', '1'].includes(text)) return true;
      if (['false', 'False', 'f', '0'].includes(text)) return false;
      throw fail('expected a bool', t.at);
    }
    if (type === 'float' || type === 'double') {
      const text = t.kind === 'ident' || t.kind === 'number' ? t.text.toLowerCase() : '';
      const body = text.replace(/^[-+]/, '');
      const sign = text.startsWith('-') ? -1 : 1;
      if (body === 'inf' || body === 'infinity') return sign * Number.POSITIVE_INFINITY;
      if (body === 'nan') return Number.NaN;
      const v = Number(text.replace(/f$/, ''));
      if (Number.isNaN(v)) throw fail(`bad number ${text}`, t.at);
      return v;
    }
    if (t.kind !== 'number') throw fail('expected an integer', t.at);
    const v = /^[-+]?0x/i.test(t.text) ? this.integer(t.text.replace(/0x/i, '0x'), t.at) : this.integer(t.text, t.at);
    return v;
  }

  private skipValue(depth: number): void {
    if (depth > LIMITS.textDepth) throw fail(`messages nested deeper than ${LIMITS.textDepth}`);
    if (this.isPunct(':')) this.pos++;
    if (this.isPunct('{') || this.isPunct('<')) {
      const open = this.next();
      const close = open.kind === 'punct' && open.text === '{' ? '}' : '>';
      this.skipFields(close, depth + 1);
      return;
    }
    if (this.isPunct('[')) {
      this.pos++;
      while (!this.isPunct(']')) {
        this.skipValue(depth + 1);
        if (this.isPunct(',')) this.pos++;
      }
      this.pos++;
      return;
    }
    this.next();
  }

  private skipFields(close: string, depth: number): void {
    while (!this.isPunct(close)) {
      const t = this.next();
      if (t.kind === 'punct' && t.text === '[') {
        while (!this.isPunct(']')) this.next();
        this.pos++;
      } else if (t.kind !== 'ident') throw fail('expected a field name', t.at);
      this.skipValue(depth);
      this.skipSeparator();
    }
    this.pos++;
  }
}

/**
 * Reads protobuf text into a plain object for message `typeName` (e.g. `tensorflow.GraphDef`) of
 * the JSON descriptor `root`: repeated fields are arrays, maps are objects, int64 values that do not
 * fit a double are decimal strings, bytes are Uint8Array, enums are their names.
 */
export function parseTextFormat(text: string, root: unknown, typeName: string): Record<string, unknown> {
  const tree = root as TypeDescriptor;
  let type: TypeDescriptor | undefined = tree;
  const path = typeName.split('.');
  for (const p of path) type = type?.nested?.[p];
  if (!type?.fields) throw fail(`schema has no message ${typeName}`);
  const reader = new Reader(tokenize(text), tree);
  return reader.readMessage(type, path.slice(0, -1).concat(path.slice(-1)), undefined, 0);
}

import { type Diagnostic, diagnostic } from '@tsge/metadef';
import protobuf from 'protobufjs/light.js';
import { TEXT_LIMITS, type Token, textError, tokenize } from './tokenize.js';

/** A message read from text format: field name → value (arrays for repeated fields). */
export type TextMessage = { [field: string]: TextValue | TextValue[] };
export type TextValue = number | boolean | string | Uint8Array | TextMessage;

const INT_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  int32: [-0x80000000, 0x7fffffff],
  sint32: [-0x80000000, 0x7fffffff],
  sfixed32: [-0x80000000, 0x7fffffff],
  uint32: [0, 0xffffffff],
  fixed32: [0, 0xffffffff],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  sint64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  sfixed64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  uint64: [0, Number.MAX_SAFE_INTEGER],
  fixed64: [0, Number.MAX_SAFE_INTEGER],
};

/**
 * Reads protobuf text format into plain objects typed by `type` (a reflection Type of the same
 * schema as the static module, so the result has the static interfaces' shape: numbers for enums
 * and integers, arrays for repeated fields). Fields the schema does not know are skipped with a
 * warning, as Caffe forks add their own; syntax errors throw TSGE-E3201 with line and column.
 * protobufjs has no text-format reader, and no maintained one exists on npm, hence this one.
 */
export function parseTextFormat(text: string, type: protobuf.Type, diagnostics: Diagnostic[], file?: string): TextMessage {
  const reader = new TextReader(tokenize(text), diagnostics, file);
  const message = reader.message(type, undefined, 0);
  return message;
}

class TextReader {
  private pos = 0;
  private readonly warned = new Set<string>();

  constructor(
    private readonly tokens: readonly Token[],
    private readonly diagnostics: Diagnostic[],
    private readonly file: string | undefined,
  ) {}

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.pos + offset];
  }

  private next(): Token {
    const token = this.tokens[this.pos++];
    if (!token) {
      const last = this.tokens[this.tokens.length - 1];
      throw textError(last?.line ?? 1, last?.column ?? 1, 'unexpected end of file');
    }
    return token;
  }

  private isSymbol(text: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t?.kind === 'symbol' && t.text === text;
  }

  private expect(text: string): void {
    const t = this.next();
    if (t.kind !== 'symbol' || t.text !== text) throw textError(t.line, t.column, `expected "${text}", found "${t.text}"`);
  }

  /** Fields until `close` (or the end of input at the top level). */
  message(type: protobuf.Type | undefined, close: string | undefined, depth: number): TextMessage {
    if (depth > TEXT_LIMITS.depth) {
      const t = this.peek() ?? this.tokens[this.tokens.length - 1];
      throw textError(t?.line ?? 1, t?.column ?? 1, `messages nest deeper than ${TEXT_LIMITS.depth}`);
    }
    const out: TextMessage = {};
    for (;;) {
      const t = this.peek();
      if (!t) {
        if (close !== undefined) this.next();
        return out;
      }
      if (close !== undefined && t.kind === 'symbol' && t.text === close) {
        this.pos++;
        return out;
      }
      if (t.kind === 'symbol' && t.text === '[') throw textError(t.line, t.column, 'extensions and Any fields are not supported');
      if (t.kind !== 'ident') throw textError(t.line, t.column, `expected a field name, found "${t.text}"`);
      this.pos++;
      this.field(type, t, out, depth);
      if (this.isSymbol(',') || this.isSymbol(';')) this.pos++;
    }
  }

  private field(type: protobuf.Type | undefined, name: Token, out: TextMessage, depth: number): void {
    // own keys only: a field named `constructor` or `__proto__` in the file is unknown, not Object's
    const field = type && Object.hasOwn(type.fields, name.text) ? type.fields[name.text] : undefined;
    if (type && !field) this.warnUnknown(type, name);
    const resolved = field?.resolve().resolvedType;
    const isMessage = resolved instanceof protobuf.Type;
    const hasColon = this.isSymbol(':');
    if (hasColon) this.pos++;
    const add = (value: TextValue | undefined) => {
      if (!field || value === undefined) return;
      if (field.repeated) {
        const list = (out[field.name] ??= []) as TextValue[];
        list.push(value);
      } else out[field.name] = value;
    };
    const readOne = (): TextValue | undefined => {
      if (this.isSymbol('{') || this.isSymbol('<')) {
        const open = this.next();
        const inner = this.message(isMessage ? resolved : undefined, open.text === '{' ? '}' : '>', depth + 1);
        if (field && !isMessage) throw textError(open.line, open.column, `field ${name.text} is not a message`);
        return field ? inner : undefined;
      }
      if (!hasColon && field) {
        const t = this.peek() ?? name;
        throw textError(t.line, t.column, `expected ":" after ${name.text}`);
      }
      if (isMessage) {
        const t = this.peek() ?? name;
        throw textError(t.line, t.column, `field ${name.text} is a message: expected "{"`);
      }
      return this.scalar(field, resolved);
    };
    if (this.isSymbol('[')) {
      this.pos++;
      if (field && !field.repeated) throw textError(name.line, name.column, `field ${name.text} is not repeated`);
      if (this.isSymbol(']')) {
        this.pos++;
        return;
      }
      for (;;) {
        add(readOne());
        if (this.isSymbol(',')) {
          this.pos++;
          continue;
        }
        this.expect(']');
        return;
      }
    }
    add(readOne());
  }

  private warnUnknown(type: protobuf.Type, name: Token): void {
    const key = `${type.name}.${name.text}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.diagnostics.push(
      diagnostic(
        'TSGE-E3210',
        { field: `${name.text} (line ${name.line})`, message: type.name },
        this.file ? { file: this.file } : undefined,
        'warning',
      ),
    );
  }

  /** A scalar value; with no field (an unknown one) it is consumed and dropped. */
  private scalar(field: protobuf.Field | undefined, resolved: protobuf.Type | protobuf.Enum | null | undefined): TextValue | undefined {
    let negative = false;
    if (this.isSymbol('-')) {
      this.pos++;
      negative = true;
    }
    const t = this.next();
    if (t.kind === 'string') {
      let text = t.text;
      while (this.peek()?.kind === 'string') text += this.next().text;
      if (!field) return undefined;
      if (field.type === 'string') return text;
      if (field.type === 'bytes') return new TextEncoder().encode(text);
      throw textError(t.line, t.column, `field ${field.name} is not a string`);
    }
    if (t.kind === 'symbol') throw textError(t.line, t.column, `expected a value, found "${t.text}"`);
    if (!field) return undefined;
    if (resolved instanceof protobuf.Enum) {
      if (t.kind === 'ident' && !negative) {
        const value = Object.hasOwn(resolved.values, t.text) ? resolved.values[t.text] : undefined;
        if (value === undefined) throw textError(t.line, t.column, `${t.text} is not a value of enum ${resolved.name}`);
        return value;
      }
      return this.integer(t, negative, 'int32');
    }
    switch (field.type) {
      case 'bool':
        if (!negative && (t.text === 'true' || t.text === 't' || t.text === 'True' || t.text === '1')) return true;
        if (!negative && (t.text === 'false' || t.text === 'f' || t.text === 'False' || t.text === '0')) return false;
        throw textError(t.line, t.column, `expected true or false for ${field.name}, found "${t.text}"`);
      case 'float':
      case 'double': {
        const value = floatValue(t.text);
        if (value === undefined) throw textError(t.line, t.column, `expected a number for ${field.name}, found "${t.text}"`);
        return negative ? -value : value;
      }
      case 'string':
      case 'bytes':
        throw textError(t.line, t.column, `expected a quoted string for ${field.name}`);
      default:
        if (field.type in INT_RANGES) return this.integer(t, negative, field.type);
        throw textError(t.line, t.column, `field ${field.name} has unsupported type ${field.type}`);
    }
  }

  private integer(t: Token, negative: boolean, type: string): number {
    let value: number;
    if (/^0[xX][0-9a-fA-F]+$/.test(t.text)) value = Number.parseInt(t.text.slice(2), 16);
    else if (/^0[0-7]+$/.test(t.text)) value = Number.parseInt(t.text.slice(1), 8);
    else if (/^\d+$/.test(t.text)) value = Number(t.text);
    else throw textError(t.line, t.column, `expected an integer, found "${t.text}"`);
    if (negative) value = -value;
    const [lo, hi] = INT_RANGES[type] ?? INT_RANGES.int64;
    if (!(value >= lo && value <= hi)) throw textError(t.line, t.column, `${negative ? '-' : ''}${t.text} is out of range for ${type}`);
    return value;
  }
}

function floatValue(text: string): number | undefined {
  const lower = text.toLowerCase();
  if (lower === 'inf' || lower === 'infinity') return Number.POSITIVE_INFINITY;
  if (lower === 'nan') return Number.NaN;
  const body = /^[\d.]/.test(text) ? text.replace(/[fF]$/, '') : text;
  if (!/^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(body)) return undefined;
  return Number(body);
}

import { TsgeError } from '@tsge/metadef';

/** One token of protobuf text format. Strings are already unescaped into bytes-as-UTF-8 text. */
export interface Token {
  readonly kind: 'ident' | 'number' | 'string' | 'symbol';
  readonly text: string;
  readonly line: number;
  readonly column: number;
}

/** Bounds that keep a hostile file from exhausting memory. */
export const TEXT_LIMITS = { bytes: 256 * 1024 * 1024, tokens: 50_000_000, depth: 64 } as const;

const SYMBOLS = new Set(['{', '}', '<', '>', '[', ']', ':', ',', ';', '-']);

export function textError(line: number, column: number, reason: string): TsgeError {
  return TsgeError.of('TSGE-E3201', { line, column, reason });
}

/** Splits text format into tokens; `#` comments and whitespace are dropped. */
export function tokenize(text: string): Token[] {
  if (text.length > TEXT_LIMITS.bytes) throw TsgeError.of('TSGE-E3213', { what: 'size', actual: text.length, limit: TEXT_LIMITS.bytes });
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      line++;
      i++;
      lineStart = i;
      continue;
    }
    if (c === 32 || c === 9 || c === 13 || c === 12 || c === 11) {
      i++;
      continue;
    }
    const column = i - lineStart + 1;
    const ch = text[i] as string;
    if (ch === '#') {
      while (i < n && text.charCodeAt(i) !== 10) i++;
      continue;
    }
    if (tokens.length >= TEXT_LIMITS.tokens)
      throw TsgeError.of('TSGE-E3213', { what: 'token count', actual: tokens.length, limit: TEXT_LIMITS.tokens });
    if (ch === '"' || ch === "'") {
      const { value, end } = readString(text, i, line, column);
      tokens.push({ kind: 'string', text: value, line, column });
      i = end;
      continue;
    }
    if (isIdentStart(c)) {
      let j = i + 1;
      while (j < n && isIdentPart(text.charCodeAt(j))) j++;
      tokens.push({ kind: 'ident', text: text.slice(i, j), line, column });
      i = j;
      continue;
    }
    if (isDigit(c) || (ch === '.' && isDigit(text.charCodeAt(i + 1)))) {
      let j = i + 1;
      // digits, hex, exponents with signs, and float suffixes (1.5f)
      while (j < n) {
        const d = text.charCodeAt(j);
        if (isIdentPart(d) || d === 46) j++;
        else if ((d === 43 || d === 45) && (text[j - 1] === 'e' || text[j - 1] === 'E') && !/^0[xX]/.test(text.slice(i, j))) j++;
        else break;
      }
      tokens.push({ kind: 'number', text: text.slice(i, j), line, column });
      i = j;
      continue;
    }
    if (SYMBOLS.has(ch)) {
      tokens.push({ kind: 'symbol', text: ch, line, column });
      i++;
      continue;
    }
    throw textError(line, column, `unexpected character ${JSON.stringify(ch)}`);
  }
  return tokens;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isIdentStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}
function isIdentPart(c: number): boolean {
  return isIdentStart(c) || isDigit(c);
}

const ESCAPES: Readonly<Record<string, number>> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, '\\': 92, "'": 39, '"': 34, '?': 63 };

/** Reads a quoted string with C escapes (octal, hex, \u); the result is the UTF-8 decoded text. */
function readString(text: string, start: number, line: number, column: number): { value: string; end: number } {
  const quote = text[start];
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === quote) return { value: new TextDecoder().decode(new Uint8Array(bytes)), end: i + 1 };
    if (ch === '\n') break;
    if (ch !== '\\') {
      const code = text.codePointAt(i) as number;
      const piece = String.fromCodePoint(code);
      for (const b of encoder.encode(piece)) bytes.push(b);
      i += piece.length;
      continue;
    }
    const e = text[i + 1];
    if (e === undefined) break;
    if (e in ESCAPES) {
      bytes.push(ESCAPES[e] as number);
      i += 2;
    } else if (/[0-7]/.test(e)) {
      const m = /^[0-7]{1,3}/.exec(text.slice(i + 1, i + 4)) as RegExpExecArray;
      bytes.push(Number.parseInt(m[0], 8) & 255);
      i += 1 + m[0].length;
    } else if (e === 'x' || e === 'X') {
      const m = /^[0-9a-fA-F]{1,2}/.exec(text.slice(i + 2, i + 4));
      if (!m) throw textError(line, column, 'bad \\x escape in string');
      bytes.push(Number.parseInt(m[0], 16));
      i += 2 + m[0].length;
    } else if (e === 'u' || e === 'U') {
      const width = e === 'u' ? 4 : 8;
      const hex = text.slice(i + 2, i + 2 + width);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== width) throw textError(line, column, `bad \\${e} escape in string`);
      const cp = Number.parseInt(hex, 16);
      if (cp > 0x10ffff) throw textError(line, column, `bad \\${e} escape in string`);
      for (const b of encoder.encode(String.fromCodePoint(cp))) bytes.push(b);
      i += 2 + width;
    } else throw textError(line, column, `unknown escape \\${e} in string`);
  }
  throw textError(line, column, 'unterminated string');
}

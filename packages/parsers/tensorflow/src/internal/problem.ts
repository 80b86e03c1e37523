import { type Diagnostic, type DiagnosticLocation, type ErrorCode, TsgeError, diagnostic } from '@tsge/metadef';

/**
 * Thrown inside the parser for one problem in the model; caught at node/tensor boundaries and
 * turned into a diagnostic so the parser keeps going and reports everything at once.
 */
export class TfProblem extends Error {
  readonly code: ErrorCode;
  readonly args: Readonly<Record<string, unknown>>;
  constructor(code: ErrorCode, args: Readonly<Record<string, unknown>>) {
    super(`${code}: ${JSON.stringify(args)}`);
    this.name = 'TfProblem';
    this.code = code;
    this.args = args;
  }
}

export function malformed(format: string, reason: string): TfProblem {
  return new TfProblem('TSGE-E3101', { format, reason });
}

/** A node that cannot be converted (bad attribute, input that must be constant, ...). */
export function nodeProblem(node: string, op: string, reason: string): TfProblem {
  return new TfProblem('TSGE-E3103', { node, op, reason });
}

/** Any thrown value as a diagnostic: our problems keep their code, anything else is malformed input. */
export function problemToDiagnostic(error: unknown, location?: DiagnosticLocation, format = 'TensorFlow model'): Diagnostic {
  if (error instanceof TfProblem) return diagnostic(error.code, error.args, location);
  // a coded error from the host (a side file it could not read) keeps its code and location
  const hosted = TsgeError.isInstance(error) ? error.diagnostics[0] : undefined;
  if (hosted) return { ...hosted, location: { ...location, ...hosted.location } };
  const reason = error instanceof Error ? error.message : String(error);
  return diagnostic('TSGE-E3101', { format, reason }, location);
}

/** Bounds every count and length read from a model (files are untrusted). */
export const LIMITS = {
  nodes: 2_000_000,
  tensorElements: 1 << 30,
  textDepth: 100,
  functionDepth: 32,
} as const;

/** int64 fields (protobufjs Long, number or string) as a checked JS number. */
export function toInt(value: unknown, what: string): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const n = Number(value);
    if (!Number.isSafeInteger(n)) throw malformed('TensorFlow model', `${what} ${value} is not a safe integer`);
    return n;
  }
  if (typeof value === 'object' && value !== null && 'low' in value && 'high' in value) {
    const v = value as { low: number; high: number; unsigned?: boolean };
    const n = v.high * 4294967296 + (v.low >>> 0);
    if (!Number.isSafeInteger(n)) throw malformed('TensorFlow model', `${what} is outside the safe integer range`);
    return n;
  }
  throw malformed('TensorFlow model', `${what} is not an integer`);
}

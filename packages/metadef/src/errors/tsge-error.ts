import { type ErrorCode, formatMessage } from './catalog.js';
import { type Diagnostic, type DiagnosticLocation, type Severity, formatDiagnostic } from './diagnostic.js';

const MARKER: unique symbol = Symbol.for('@tsge/error') as never;

/** Builds a diagnostic from the catalog. */
export function diagnostic(
  code: ErrorCode,
  args: Readonly<Record<string, unknown>> = {},
  location?: DiagnosticLocation,
  severity: Severity = 'error',
): Diagnostic {
  return { code, severity, message: formatMessage(code, args), ...(location ? { location } : {}) };
}

/**
 * The one error class that crosses packages. `TsgeError.isInstance` works across duplicated
 * installs, where `instanceof` does not.
 */
export class TsgeError extends Error {
  readonly [MARKER] = true;
  readonly code: string;
  readonly diagnostics: readonly Diagnostic[];

  constructor(code: string, message: string, options?: { cause?: unknown; diagnostics?: readonly Diagnostic[] }) {
    super(message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'TsgeError';
    this.code = code;
    this.diagnostics = options?.diagnostics ?? [];
  }

  static isInstance(value: unknown): value is TsgeError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  /** An error from one catalog entry. */
  static of(code: ErrorCode, args: Readonly<Record<string, unknown>> = {}, location?: DiagnosticLocation, cause?: unknown): TsgeError {
    const d = diagnostic(code, args, location);
    return new TsgeError(code, formatDiagnostic(d), { diagnostics: [d], ...(cause !== undefined ? { cause } : {}) });
  }

  /** An error carrying many diagnostics; its code and message are the first error's. */
  static fromDiagnostics(diagnostics: readonly Diagnostic[]): TsgeError {
    const first = diagnostics.find((d) => d.severity === 'error') ?? diagnostics[0];
    if (!first) return new TsgeError('TSGE-E1099', 'unknown error');
    const more = diagnostics.length > 1 ? `\n${diagnostics.slice(1).map(formatDiagnostic).join('\n')}` : '';
    return new TsgeError(first.code, formatDiagnostic(first) + more, { diagnostics });
  }
}
